import { test, expect } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectAccessible, expectNoSideScroll, fillBillingProfile, lastMailLink, logIn, signUpAndConfirm } from './helpers';

// A billing colleague reconciles the month: opens the invoice the first
// server produced, downloads its PDF and exports the month's CSV.

test('a billing user opens an invoice, downloads its PDF and exports the month as CSV', async ({ browser }) => {
  test.setTimeout(90_000);
  const stamp = Date.now();
  const ownerEmail = `owner-bill-${stamp}@example.com`;
  const billingEmail = `ap-${stamp}@example.com`;

  const owner = await (await browser.newContext()).newPage();
  await signUpAndConfirm(owner, ownerEmail, 'Owen Owner', 'Ledger Labs');
  await logIn(owner, ownerEmail);
  await owner.goto('/en/members');
  await owner.getByLabel('Email', { exact: true }).fill(billingEmail);
  await owner.getByLabel('Role', { exact: true }).selectOption('billing');
  await owner.getByRole('button', { name: 'Send invitation' }).click();
  const invitation = lastMailLink(billingEmail);

  // The owner orders a server, giving the billing profile first (Dutch,
  // so Dutch VAT); its first month is invoiced when it runs.
  await owner.goto('/en/order?plan=g-ada&site=ams');
  await expect(owner).toHaveURL(/\/en\/billing\/profile\?plan=g-ada&site=ams$/);
  await fillBillingProfile(owner, 'Ledger Labs B.V.', 'NL', ownerEmail);
  await expect(owner).toHaveURL(/\/en\/order\?plan=g-ada&site=ams$/);
  await owner.getByLabel('Server name').fill('ledger-1');
  await owner.getByTestId('place-order').click();
  await expect(owner.getByTestId('server-state')).toHaveText('Running', { timeout: 30_000 });

  const clerk = await (await browser.newContext({ acceptDownloads: true })).newPage();
  await signUpAndConfirm(clerk, billingEmail, 'Ada Payable', '');
  await logIn(clerk, billingEmail);
  await clerk.goto(invitation);
  await clerk.getByRole('button', { name: 'Accept invitation' }).click();

  // The invoice list shows it (the worker issues it within seconds).
  await expect(async () => {
    await clerk.goto('/en/billing');
    await expect(clerk.locator('tr[data-invoice^="INV-"]')).toHaveCount(1, { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await expectAccessible(clerk, 'the billing page');
  await expectNoSideScroll(clerk, 'the billing page');
  const row = clerk.locator('tr[data-invoice^="INV-"]');
  const number = (await row.getAttribute('data-invoice'))!;
  // G-ADA €239.00 + Dutch VAT 21% (€50.19).
  await expect(row).toContainText('€289.19');

  await row.getByRole('link', { name: number }).click();
  await expect(clerk.getByTestId('invoice-number')).toHaveText(number);
  await expect(clerk.getByTestId('invoice-total')).toHaveText('€289.19');
  await expect(clerk.locator('.invoice-doc')).toContainText('VAT 21%');
  await expect(clerk.locator('.invoice-doc')).toContainText('Reference');
  await expectAccessible(clerk, 'the invoice');

  const [pdf] = await Promise.all([clerk.waitForEvent('download'), clerk.getByTestId('invoice-pdf').click()]);
  // The file name carries the language: both downloads can sit side by side.
  expect(pdf.suggestedFilename()).toBe(`${number}-en.pdf`);
  const pdfBytes = readFileSync((await pdf.path())!);
  expect(pdfBytes.subarray(0, 5).toString()).toBe('%PDF-');
  expect(pdfBytes.length).toBeGreaterThan(5_000);

  // The month's CSV, from the filtered list.
  const month = new Date().toISOString().slice(0, 7);
  await clerk.goto('/en/billing');
  await clerk.getByLabel('Month issued').fill(month);
  await clerk.getByRole('button', { name: 'Filter' }).click();
  const [csv] = await Promise.all([clerk.waitForEvent('download'), clerk.getByTestId('export-csv').click()]);
  expect(csv.suggestedFilename()).toBe(`invoices-${month}.csv`);
  const text = readFileSync((await csv.path())!, 'utf8');
  const lines = text.trim().split('\n');
  expect(lines[0]).toMatch(/^number,issued,due,status,customer/);
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain(`${number},`);
  expect(lines[1]).toContain(',239.00,charged,21%,50.19,289.19,0.00,289.19,EUR,');

  // The same invoice reads in Chinese.
  await clerk.goto(clerk.url().replace('/en/', '/zh/'));
  await clerk.goto('/zh/billing');
  await expect(clerk.getByRole('heading', { name: '账务', level: 1 })).toBeVisible();

  // On a phone the list stays whole in both languages: the invoice's
  // number, total and the export link are on screen without sideways
  // scrolling (screenshots for a person in $E2E_SHOTS).
  const shots = process.env.E2E_SHOTS ?? join(tmpdir(), 'gpu-e2e-shots');
  mkdirSync(shots, { recursive: true });
  await clerk.setViewportSize({ width: 360, height: 800 });
  for (const lang of ['en', 'zh'] as const) {
    await clerk.goto(`/${lang}/billing`);
    await expectNoSideScroll(clerk, `the ${lang} billing page at 360 px`);
    const phoneRow = clerk.locator(`tr[data-invoice="${number}"]`);
    const link = phoneRow.getByRole('link', { name: number });
    await link.scrollIntoViewIfNeeded();
    await expect(link).toBeInViewport({ ratio: 1 });
    await expect(phoneRow).toContainText('€289.19');
    await expect(clerk.getByTestId('export-csv')).toBeVisible();
    await clerk.screenshot({ path: join(shots, `invoice-list-360-${lang}.png`), fullPage: true });
  }
});
