import { test, expect } from '@playwright/test';
import { hostNames, logIn, operator, orderServer, setHost } from './helpers';

// Cancelling a server and reaching its date. The date is a month away, so
// this moves the running application's clock with `server clock advance`
// (development only). That moves it for every later test too, which is why
// this file runs last (Playwright runs files in name order, one worker).

test('cancel a server, reach its date, see it wiped and the stock rise', async ({ page }) => {
  test.setTimeout(120_000);
  const site = 'sin';
  const plan = 'g-l40s-x2';
  // Only the host this test orders is sellable, so the storefront shows
  // the card coming back.
  for (const name of hostNames(site, plan, 'free')) setHost(name, 'maintenance', 'e2e: isolate stock');
  const { path: server, email } = await orderServer(page, 'leaver', plan, site, 'leaving-1');
  const cell = page.locator(`table#stock td[data-site="${site}"][data-plan="${plan}"]`);
  await page.goto('/en');
  await expect(cell).toHaveAttribute('data-stock', 'sold-out');

  await page.goto(`${server}/cancellation`);
  const earliest = page.locator('#cancel-at option').first();
  await expect(earliest).toContainText('the earliest');
  await page.locator('#cancel-at').selectOption({ index: 0 });
  await page.getByLabel('Type the server’s name (leaving-1) to confirm').fill('leaving-1');
  await page.getByLabel('I understand that the volumes are wiped').check();
  await page.getByRole('button', { name: 'Cancel the server' }).click();
  await expect(page.getByTestId('cancel-scheduled')).toBeVisible();

  // A month and a day later.
  operator(['clock', 'advance', '--days', '32']);
  await expect(async () => {
    await page.goto('/en');
    await expect(cell).toHaveAttribute('data-stock', 'few', { timeout: 500 });
  }).toPass({ timeout: 30_000 });
  expect(hostNames(site, plan, 'free')).toHaveLength(1);

  // A month on, sign in afresh: the server left the list, its page says
  // it was cancelled and wiped.
  await page.context().clearCookies();
  await logIn(page, email);
  await page.goto(server);
  await expect(page.getByTestId('cancelled')).toBeVisible();
  await expect(page.locator('li[data-event="wiped"]')).toHaveCount(1);
});
