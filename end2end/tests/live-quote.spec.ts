import { test, expect, type Page } from '@playwright/test';
import { PRICES } from './helpers';

// The configurator's live quote (an island): with JavaScript the summary
// follows the selects without a navigation; without it the GET form shows
// the same figures. No CSP violation along the way.

declare global {
  interface Window {
    __e2eSameDocument?: boolean;
    __cspViolations?: string[];
  }
}

const summary = (page: Page) => page.locator('#configure-summary');

/** The summary's words, as the visitor reads them. */
const summaryText = async (page: Page) => (await summary(page).innerText()).replace(/\s+/g, ' ').trim();

/** What the visitor sees with JavaScript off, after choosing and submitting. */
async function withoutJs(page: Page, plan: string, site: string): Promise<string> {
  const context = await page.context().browser()!.newContext({ javaScriptEnabled: false, baseURL: process.env.BASE_URL });
  const other = await context.newPage();
  await other.goto('/en/configure?plan=g-ada&site=fra');
  await other.locator('select#plan').selectOption(plan);
  await other.locator('select#site').selectOption(site);
  await other.getByRole('button', { name: 'Update' }).click();
  await expect(other).toHaveURL(new RegExp(`/en/configure\\?plan=${plan}&site=${site}$`));
  const text = await summaryText(other);
  await context.close();
  return text;
}

test('the configurator quotes live, and the same figures without JavaScript', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__cspViolations!.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  let loads = 0;
  page.on('load', () => loads++);

  await page.goto('/en/configure?plan=g-ada&site=fra');
  const url = page.url();
  await expect(page.locator('.live-quote[data-live]')).toHaveCount(1);
  await expect(summary(page).locator('dd.price')).toContainText(PRICES['g-ada']);
  await page.evaluate(() => {
    window.__e2eSameDocument = true;
  });
  const loadsBefore = loads;

  // Another plan: its price, without a navigation.
  await page.locator('select#plan').selectOption('g-l40s-x2');
  await expect(summary(page).locator('dd.price')).toContainText(PRICES['g-l40s-x2']);
  await expect(summary(page)).toContainText('G-L40S×2');
  // Another site: its stock for that plan, in the summary and the select.
  await page.locator('select#site').selectOption('ams');
  await expect(summary(page)).toContainText('Amsterdam');
  const live = await summaryText(page);
  const stock = await summary(page).locator('dd[data-stock]').innerText();
  await expect(page.locator('select#site option[value="ams"]')).toContainText(stock.replace(/^\W+/, '').trim());
  await expect(page.getByTestId('order-link')).toHaveAttribute('href', '/en/order?plan=g-l40s-x2&site=ams');

  // A sold-out choice points to the sites that have the plan, live too.
  await page.locator('select#plan').selectOption('g-l40s');
  await page.locator('select#site').selectOption('lax');
  await expect(summary(page).locator('dd[data-stock]')).toHaveAttribute('data-stock', 'sold-out');
  await expect(page.getByTestId('order-link')).toHaveCount(0);
  await expect(summary(page).locator('.alternatives a').first()).toBeVisible();
  const soldOut = await summaryText(page);

  expect(page.url()).toBe(url);
  expect(loads).toBe(loadsBefore);
  expect(await page.evaluate(() => window.__e2eSameDocument)).toBe(true);
  expect(await page.evaluate(() => window.__cspViolations)).toEqual([]);
  expect(errors).toEqual([]);

  // Without JavaScript, the form submit shows the very same summaries.
  expect(await withoutJs(page, 'g-l40s-x2', 'ams')).toBe(live);
  expect(await withoutJs(page, 'g-l40s', 'lax')).toBe(soldOut);
});

test('the live quote speaks Chinese on the Chinese page', async ({ page }) => {
  await page.goto('/zh/configure?plan=g-ada&site=fra');
  await expect(page.locator('.live-quote[data-live]')).toHaveCount(1);
  await page.locator('select#plan').selectOption('g-l40s');
  await page.locator('select#site').selectOption('lax');
  await expect(summary(page).locator('dd[data-stock]')).toHaveText(/已售罄$/);
  await expect(summary(page).locator('dd.price')).toContainText('/月');
  expect(page.url()).toMatch(/\/zh\/configure\?plan=g-ada&site=fra$/);
});
