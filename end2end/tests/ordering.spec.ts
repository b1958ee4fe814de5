import { test, expect } from '@playwright/test';
import {
  expectAccessible,
  expectNoSideScroll,
  fillBillingProfile,
  serverTab,
  htmlErrors,
  lastMail,
  logIn,
  signUpAndConfirm,
} from './helpers';

// Ordering in a real browser: from the configure page to a running server,
// watched in place by the progress island; and the stock alert offered where a plan
// is sold out. run.sh sets FLEET_DEV_STEP_MS=400, so an install takes ~2.4 s.

declare global {
  interface Window {
    __e2eSameDocument?: boolean;
    __cspViolations?: string[];
  }
}

test('order a G-ADA in Frankfurt, watch it install in place, see the order delivered', async ({ page }) => {
  test.setTimeout(120_000);
  const email = `orderer-${Date.now()}@example.com`;
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__cspViolations!.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await signUpAndConfirm(page, email, 'Olga Orr', 'Orr Compute');
  await logIn(page, email);

  await page.goto('/en/configure?plan=g-ada&site=fra');
  await page.getByTestId('order-link').click();
  // The first order asks who invoices go to, starting from sign-up's
  // company, then comes back to the same plan and site.
  await expect(page).toHaveURL(/\/en\/billing\/profile\?plan=g-ada&site=fra$/);
  await expect(page.getByLabel('Legal name')).toHaveValue('Orr Compute');
  await expectAccessible(page, 'the billing profile before the first order');
  await fillBillingProfile(page, 'Orr Compute GmbH', 'DE', email);
  await expect(page).toHaveURL(/\/en\/order\?plan=g-ada&site=fra$/);
  await expect(page.getByLabel('Server name')).toHaveValue('g-ada-fra');

  await page.getByLabel('Server name').fill('trainer-1');
  await page.getByLabel('Debian 13').check();
  // Hydrated: from now on a change is quoted live.
  await expect(page.locator('.order-live[data-live]')).toHaveCount(1);
  const orderUrl = page.url();
  await page.locator('input[name="addons"][value="offsite-backup"]').check();
  // The live quote prices the add-on in place (German VAT from the profile)…
  await expect(page.getByTestId('order-total')).toHaveText('€302.26');
  expect(page.url()).toBe(orderUrl);
  expect(await page.evaluate(() => window.__cspViolations)).toEqual([]);
  await expect(page.getByTestId('bill-to')).toContainText('Orr Compute GmbH');
  // …and "Update summary" (the way without JavaScript) agrees.
  await page.getByRole('button', { name: 'Update summary' }).click();

  // The re-rendered form keeps every choice and prices it.
  await expect(page.getByTestId('order-total')).toHaveText('€302.26');
  const summary = page.locator('#order-summary');
  await expect(summary).toContainText('€254.00');
  await expect(summary).toContainText('VAT 19%');
  await expect(summary).toContainText('€48.26');
  await expect(page.getByLabel('Server name')).toHaveValue('trainer-1');
  await expect(page.getByLabel('Debian 13')).toBeChecked();
  await expect(page.locator('input[name="addons"][value="offsite-backup"]')).toBeChecked();
  await expect(page.getByTestId('bill-to')).toContainText('Germany');
  await expectAccessible(page, 'the order form');
  await expectNoSideScroll(page, 'the order form');

  await page.getByTestId('place-order').click();
  await expect(page).toHaveURL(/\/en\/servers\/[^/?]+\?placed=1$/);
  // Survives only as long as this document does: a reload or navigation drops it.
  await page.evaluate(() => {
    window.__e2eSameDocument = true;
  });

  const badge = page.getByTestId('server-state');
  await expect(badge).toHaveText(/^(Queued|Installing)$/);
  const bar = page.locator('#server-live progress[data-live="progress"]');
  const first = Number(await bar.getAttribute('value'));

  // One sample reads the bar and the marker together, so a reload between
  // two reads can't pass for an update in place.
  const sample = () =>
    page.evaluate(() => {
      const el = document.querySelector<HTMLProgressElement>('#server-live progress[data-live="progress"]');
      return { value: el ? el.value : -1, same: window.__e2eSameDocument === true };
    });
  await expect
    .poll(async () => (await sample()).value, { message: 'progress bar moves', timeout: 10_000, intervals: [100] })
    .toBeGreaterThan(Math.max(first, 0));
  const moved = await sample();
  expect(moved.same, `progress ${first} -> ${moved.value} without a navigation`).toBe(true);
  await expect(page.locator('#server-live [data-live="step"]')).not.toHaveText('Waiting to start');
  await expect(page.locator('#server-live [data-live="percent"]')).toHaveText(/^\d+%$/);
  expect(await page.evaluate(() => window.__cspViolations)).toEqual([]);

  // Done: the script reloads once for what only the full page shows.
  await expect(badge).toHaveText('Running', { timeout: 20_000 });
  await expect(page.locator('code[data-live="ipv4"]')).toHaveText(/^198\.(18|19)\.\d{1,3}\.\d{1,3}$/);
  await expect(page.locator('#server-live progress')).toHaveCount(0);
  await expectAccessible(page, 'a running server');
  await expectNoSideScroll(page, 'a running server');
  const serverPath = new URL(page.url()).pathname;
  await serverTab(page, 'Power');
  await expect(page).toHaveURL(new RegExp(`${serverPath}/power$`));
  await expect(page.getByRole('button', { name: 'Reboot' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Power cycle' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Power off' })).toBeVisible();
  await expect(page.getByLabel('Yes, do this to trainer-1')).toHaveCount(3);
  await expect(page.getByRole('heading', { name: 'Reinstall' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Erase and reinstall' })).toBeVisible();
  await serverTab(page, 'Overview');

  // No SSH key was given: the root password, shown once.
  await page.getByRole('button', { name: 'Show the root password' }).click();
  await expect(page.getByTestId('root-password')).toHaveText(/\S{8,}/);
  // Shown on the server's own address (post/redirect/get): a reload sends nothing.
  expect(new URL(page.url()).pathname).toBe(serverPath);
  await page.reload();
  await expect(page.getByRole('button', { name: 'Show the root password' })).toHaveCount(0);
  await expect(page.getByTestId('root-password')).toHaveCount(0);

  await page.goto('/en/servers');
  await expect(page.locator('tr[data-server="trainer-1"]')).toHaveAttribute('data-state', 'running');

  await page.goto('/en/orders');
  const row = page.locator('tr[data-order]', { has: page.getByRole('rowheader', { name: 'trainer-1' }) });
  await expect(row).toHaveAttribute('data-state', 'fulfilled');
  await expect(row).toContainText('Delivered');
  await expect(row).toContainText('G-ADA · Frankfurt');
  await expect(row).toContainText('€302.26');

  const orderPath = await row.getByRole('link', { name: 'trainer-1' }).getAttribute('href');
  await expectAccessible(page, 'the orders list');
  await expectNoSideScroll(page, 'the orders list');

  await page.goto('/zh/orders');
  await expect(row).toContainText('已交付');

  // The portal pages of this journey are valid HTML, as served.
  const paths = ['/en/order?plan=g-ada&site=fra', serverPath, '/en/servers', '/en/orders', orderPath!, '/en/keys'];
  const pages = [];
  for (const path of paths) pages.push({ label: path, html: await (await page.request.get(path)).text() });
  const errors = htmlErrors(pages);
  expect(errors, errors.join('\n')).toEqual([]);
});

test('sold out: lax × G-L40S ×2 offers a stock alert, which mails a confirmation', async ({ page }) => {
  const email = `alert-${Date.now()}@example.com`;
  await page.goto('/en/configure?plan=g-l40s-x2&site=lax');
  await expect(page.locator('#configure-summary dd[data-stock]')).toHaveAttribute('data-stock', 'sold-out');
  await expect(page.locator('#configure-summary dd[data-stock]')).toHaveText(/(^|\s)Sold out$/);
  await expect(page.getByTestId('order-link')).toHaveCount(0);

  const form = page.getByTestId('alert-form');
  await expect(form).toBeVisible();
  await form.getByLabel('Email').fill(email);
  await form.getByRole('button', { name: 'Notify me' }).click();

  await expect(page).toHaveURL(/\/en\/configure\?plan=g-l40s-x2&site=lax&alert=1$/);
  await expect(page.getByTestId('notice')).toHaveText(/^Done\. We’ll email you once when it’s back/);
  expect(lastMail(email)).toMatch(/^Subject: Stock alert set/m);
  await expectAccessible(page, 'the sold-out configure page with the alert set');
});
