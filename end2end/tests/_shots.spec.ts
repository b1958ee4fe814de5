import { test } from '@playwright/test';
import { logIn, signUpAndConfirm } from './helpers';
test('shots', async ({ page }) => {
  test.setTimeout(90_000);
  const email = `shots-${Date.now()}@example.com`;
  await signUpAndConfirm(page, email, 'Shot', 'Shots Ltd');
  await logIn(page, email);
  for (const [w, tag] of [[360, 'n'], [1280, 'w']] as const) {
    await page.setViewportSize({ width: w, height: 800 });
    await page.goto('/en/configure?plan=g-l40s-x2&site=lax');
    await page.screenshot({ path: `/tmp/shots/${tag}-soldout.png`, fullPage: true });
    await page.goto('/en/order?plan=g-ada&site=fra');
    await page.getByLabel('Billing country').selectOption('DE');
    await page.locator('input[name="addons"][value="offsite-backup"]').check();
    await page.getByRole('button', { name: 'Update summary' }).click();
    await page.screenshot({ path: `/tmp/shots/${tag}-order.png`, fullPage: true });
    console.log(tag, 'order scrollWidth', await page.evaluate(() => document.documentElement.scrollWidth));
  }
  await page.getByTestId('place-order').click();
  await page.waitForURL(/servers/);
  await page.setViewportSize({ width: 360, height: 800 });
  await page.screenshot({ path: `/tmp/shots/n-server-installing.png`, fullPage: true });
  await page.waitForTimeout(5000);
  await page.reload();
  await page.screenshot({ path: `/tmp/shots/n-server-running.png`, fullPage: true });
  console.log('server scrollWidth', await page.evaluate(() => document.documentElement.scrollWidth));
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: `/tmp/shots/w-server-running.png`, fullPage: true });
  await page.goto('/en/orders'); await page.screenshot({ path: `/tmp/shots/w-orders.png`, fullPage: true });
  await page.setViewportSize({ width: 360, height: 800 });
  await page.screenshot({ path: `/tmp/shots/n-orders.png`, fullPage: true });
  await page.goto('/en/servers'); await page.screenshot({ path: `/tmp/shots/n-servers.png`, fullPage: true });
  await page.goto('/en/keys'); await page.screenshot({ path: `/tmp/shots/n-keys.png`, fullPage: true });
});
