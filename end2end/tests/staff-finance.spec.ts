import { test, expect, type Browser, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectAccessible, expectNoSideScroll, operator, orderServer } from './helpers';

// Finance at a phone's width: a transfer arrives, staff record it with the
// day it arrived and the amount received. A wrong amount or date is refused
// with the form open again as typed; in both languages.

const PHONE = { width: 360, height: 800 };
// Screenshots for a person to look at: E2E_SHOTS, or a folder in /tmp.
const SHOTS = process.env.E2E_SHOTS ?? join(tmpdir(), 'gpu-e2e-shots');

/** A staff account made with the operator command, logged in on a phone. */
async function staffPage(browser: Browser): Promise<Page> {
  const email = `finance-${Date.now()}@host.example`;
  const created = operator(['staff', 'add', '--email', email, '--name', 'Finance']);
  const password = created.split('store it now): ')[1].trim();
  const page = await (await browser.newContext({ viewport: PHONE })).newPage();
  await page.goto('/en/login');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page).not.toHaveURL(/\/login/);
  return page;
}

/** A customer with a running server, whose first invoice finance will see. */
async function invoicedCustomer(browser: Browser, who: string): Promise<string> {
  const page = await (await browser.newContext()).newPage();
  await orderServer(page, who, 'g-ada', 'fra', `${who}-1`);
  await page.context().close();
  return `${who} Labs`;
}

/** The open invoice of a customer on the finance page, once issued. */
async function openInvoice(staff: Page, lang: 'en' | 'zh', customer: string) {
  const card = staff.locator('li.open-invoice', { hasText: customer });
  await expect(async () => {
    await staff.goto(`/${lang}/staff/finance`);
    await expect(card).toHaveCount(1, { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  return card;
}

test('finance records a transfer with its date and amount at 360 px, in both languages', async ({ browser }) => {
  test.setTimeout(180_000);
  mkdirSync(SHOTS, { recursive: true });
  const stamp = Date.now() % 1_000_000;
  const [english, chinese] = await Promise.all([
    invoicedCustomer(browser, `ledger${stamp}`),
    invoicedCustomer(browser, `zhangben${stamp}`),
  ]);
  const today = new Date().toISOString().slice(0, 10);
  const staff = await staffPage(browser);

  // English: the staff home leads to finance.
  await staff.goto('/en/staff');
  await staff.getByRole('link', { name: 'Finance' }).first().click();
  const card = await openInvoice(staff, 'en', english);
  await expectNoSideScroll(staff, 'staff finance');
  await staff.screenshot({ path: `${SHOTS}/staff-finance-en-360.png`, fullPage: true });
  await card.getByText('Record payment…').click();
  const amount = card.getByLabel('Amount received (€)');
  await expect(card.getByLabel('Payment date')).toHaveValue(today);
  const due = await amount.inputValue();
  expect(due).toMatch(/^\d+\.\d\d$/);
  await staff.screenshot({ path: `${SHOTS}/staff-finance-form-en-360.png`, fullPage: true });
  await expectAccessible(staff, 'staff finance with a form open');

  // A transfer short of the amount due is refused, the form open as typed.
  await amount.fill('1.00');
  await card.getByRole('button', { name: 'Record payment', exact: true }).click();
  await expect(staff.getByTestId('form-error')).toContainText(`isn’t the amount due (€${due})`);
  await expect(amount).toHaveValue('1.00');
  await amount.fill(due);
  await card.getByRole('button', { name: 'Record payment', exact: true }).click();
  await expect(staff).toHaveURL(/\/en\/staff\/finance\?done=paid$/);
  await expect(staff.getByTestId('notice')).toContainText('Payment recorded');
  const paid = staff.locator('tr[data-status="paid"]', { hasText: english });
  await expect(paid).toContainText(today);
  await expect(paid).toContainText(`€${due} / €${due}`);
  await expectNoSideScroll(staff, 'staff finance after a payment');

  // Chinese: the language switch stays on the staff finance page.
  await staff.getByTestId('lang-switch').click();
  await expect(staff).toHaveURL(/\/zh\/staff\/finance(\?.*)?$/);
  const zhCard = await openInvoice(staff, 'zh', chinese);
  await zhCard.getByText('记录付款…').click();
  // The date is typed as an ISO date (no date picker showing the browser's
  // locale), today's by default; the server refuses a wrong amount, in
  // Chinese.
  const zhDate = zhCard.getByLabel('付款日期');
  await expect(zhDate).toHaveValue(today);
  await expect(zhDate).toHaveAttribute('placeholder', 'YYYY-MM-DD');
  await expect(zhDate).not.toHaveAttribute('type', 'date');
  const zhAmount = zhCard.getByLabel('实收金额（€）');
  const zhDue = await zhAmount.inputValue();
  await zhAmount.fill('1.00');
  await zhCard.getByRole('button', { name: '记录付款', exact: true }).click();
  await expect(staff.getByTestId('form-error')).toContainText(`实收金额与应付金额（€${zhDue}）不符。`);
  await expect(zhAmount).toHaveValue('1.00');
  await staff.screenshot({ path: `${SHOTS}/staff-finance-zh-refused-360.png`, fullPage: true });
  await zhAmount.fill(zhDue);
  await zhCard.getByRole('button', { name: '记录付款', exact: true }).click();
  await expect(staff).toHaveURL(/\/zh\/staff\/finance\?done=paid$/);
  await expect(staff.getByTestId('notice')).toContainText('已记录付款');
  await expect(staff.locator('tr[data-status="paid"]', { hasText: chinese })).toContainText(today);
  await expectNoSideScroll(staff, 'staff finance in Chinese');
  await staff.screenshot({ path: `${SHOTS}/staff-finance-zh-360.png`, fullPage: true });
});
