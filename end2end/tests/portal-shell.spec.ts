import { test, expect, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectAccessible, expectNoSideScroll, orderServer, serverTab } from './helpers';

// The portal's frame (issue 33): one layout for every signed-in page, the
// menu a sidebar on desks and one sideways-scrolling row on phones, the
// server page in tabs with their own addresses, phone tables as cards,
// and a home page that lists the best connected few cities on a phone.
// Screenshots of the server page and the tokens page at 360 and 1280 px in
// both languages go to $E2E_SHOTS (or /tmp/gpu-e2e-shots).

const SHOTS = process.env.E2E_SHOTS ?? join(tmpdir(), 'gpu-e2e-shots');

async function box(page: Page, selector: string) {
  const b = await page.locator(selector).first().boundingBox();
  expect(b, `${selector} is shown`).not.toBeNull();
  return b!;
}

async function shoot(page: Page, name: string) {
  const back = page.url();
  for (const lang of ['en', 'zh'] as const) {
    const url = new URL(back);
    url.pathname = url.pathname.replace(/^\/(en|zh)\//, `/${lang}/`);
    await page.goto(url.toString());
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: width === 360 ? 800 : 900 });
      await expectNoSideScroll(page, `${name} (${lang}, ${width} px)`);
      await page.screenshot({ path: `${SHOTS}/${name}-${width}-${lang}.png`, fullPage: true });
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(back);
}

test('one portal frame: a sidebar on desks, a row on phones, tabs on the server page', async ({ page }) => {
  test.setTimeout(150_000);
  mkdirSync(SHOTS, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  const { path: server } = await orderServer(page, 'framed', 'g-ada', 'ams', 'framed-1');

  // Desk: the menu sits left of the content, its current item marked.
  const menu = page.getByRole('navigation', { name: 'Portal' });
  const current = menu.locator('a[aria-current="page"]');
  await expect(current).toHaveText('Servers');
  const nav = await box(page, '.portal-nav');
  const title = await box(page, '#server-title');
  expect(nav.x + nav.width, 'the menu is beside the content').toBeLessThanOrEqual(title.x);
  const marked = await current.evaluate((a) => getComputedStyle(a).backgroundColor);
  const plain = await menu.locator('a:not([aria-current])').first().evaluate((a) => getComputedStyle(a).backgroundColor);
  expect(marked, 'the current item looks different').not.toBe(plain);
  // The same frame on another page: the content starts at the same place.
  await page.goto('/en/tokens');
  expect((await box(page, 'h1')).x).toBeCloseTo(title.x, 0);

  // Phone: the menu is one row above the content, scrolling sideways.
  await page.setViewportSize({ width: 360, height: 800 });
  await page.goto(server);
  const row = await box(page, '.portal-nav');
  expect(row.height, 'one row').toBeLessThan(60);
  expect((await box(page, '#server-title')).y).toBeGreaterThan(row.y + row.height - 1);
  await expectNoSideScroll(page, 'the server page');

  // The server page's tabs, each at its own address; back and reload stay.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(server);
  for (const [name, rest] of [['Graphs', '/graphs'], ['Snapshots', '/snapshots'], ['Console', '/console'], ['Power', '/power'], ['Cancellation', '/cancellation']]) {
    await serverTab(page, name);
    await expect(page).toHaveURL(new RegExp(`${server}${rest}$`));
  }
  await page.reload();
  await expect(page.getByRole('navigation', { name: 'Server sections' }).locator('a[aria-current="page"]')).toHaveText('Cancellation');
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`${server}/power$`));
  await serverTab(page, 'Overview');
  // Copy buttons, turned on by the script, copy what they sit beside.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  const copy = page.getByRole('button', { name: 'Copy IPv4' });
  await expect(copy).toBeVisible();
  await copy.click();
  await expect(copy).toHaveText('Copied');
  const ipv4 = await page.locator('#ipv4').textContent();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(ipv4?.trim());
  await expect(page.getByTestId('hostname')).toHaveText('framed-1');
  await expectAccessible(page, 'the server overview');
  await shoot(page, 'server-page');
  await serverTab(page, 'Graphs');
  await shoot(page, 'server-graphs');

  // The tokens page: cards on a phone, no sideways scroll, in both languages.
  await page.goto('/en/tokens');
  await page.getByLabel('Name', { exact: true }).fill('ci-deploy');
  await page.getByRole('checkbox', { name: /^read:/ }).check();
  await page.getByRole('button', { name: 'Create token' }).click();
  await expect(page.getByTestId('new-token')).toBeVisible();
  await page.setViewportSize({ width: 360, height: 800 });
  const card = page.locator('table.tokens tr[data-token]').first();
  expect(await card.evaluate((tr) => getComputedStyle(tr).display)).toBe('block');
  await expectNoSideScroll(page, 'the tokens page');
  await page.setViewportSize({ width: 1280, height: 900 });
  await expectAccessible(page, 'the tokens page');
  await shoot(page, 'tokens');

  // Webhooks: an endpoint added in the form, its secret shown once, a test
  // event listed with its answer; usable on a phone, in both languages.
  await page.goto('/en/webhooks');
  await page.getByLabel('Address').fill('http://127.0.0.1:9/hook');
  await page.getByRole('checkbox', { name: /server\.\*/ }).check();
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await expect(page.getByTestId('new-secret')).toContainText('whsec_');
  await page.getByRole('button', { name: 'Send test event' }).click();
  await expect(page.getByTestId('notice')).toBeVisible();
  await expect(page.locator('tr[data-delivery] th code', { hasText: 'ping' })).toBeVisible();
  await expectAccessible(page, 'the webhooks page');
  await shoot(page, 'webhooks');

  // Members: a row's role choice and its buttons line up, one height.
  await page.goto('/en/members');
  const member = page.locator('tr[data-member]').first();
  const choice = (await member.locator('select').boundingBox())!;
  for (const name of ['Change role', 'Leave organization']) {
    const button = (await member.getByRole('button', { name }).boundingBox())!;
    expect(Math.abs(button.height - choice.height), `${name}: the same height`).toBeLessThan(2);
    expect(Math.abs(button.y + button.height / 2 - (choice.y + choice.height / 2)), `${name}: on one line`).toBeLessThan(2);
  }

  // The audit log: cards on a phone too.
  await page.goto('/en/audit');
  await page.setViewportSize({ width: 360, height: 800 });
  expect(await page.locator('table.audit tbody tr').first().evaluate((tr) => getComputedStyle(tr).display)).toBe('block');
  await expectNoSideScroll(page, 'the audit log');
});

test('on a phone the home page lists the best connected cities and shows all on request', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 800 });
  await page.goto('/en');
  const rows = page.locator('#latency-all tbody tr');
  const total = await rows.count();
  expect(total).toBeGreaterThan(20);
  const visible = async () => (await rows.evaluateAll((trs) => trs.filter((tr) => getComputedStyle(tr).display !== 'none').length));
  const few = await visible();
  expect(few, 'a few cities').toBeLessThanOrEqual(8);
  expect(few).toBeGreaterThanOrEqual(6);
  const short = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.getByRole('link', { name: `Show all ${total} cities` }).click();
  expect(await visible()).toBe(total);
  const long = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(long - short, 'the rest were folded away').toBeGreaterThan(1500);
  // On a desk every city shows, and there is nothing to unfold.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto('/zh');
  await expect(page.getByRole('link', { name: /显示全部/ })).toBeHidden();
  expect(await visible()).toBe(total);
});
