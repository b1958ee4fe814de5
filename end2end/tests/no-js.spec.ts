import { test, expect } from '@playwright/test';
import { PRICES } from './helpers';

// Everything on the storefront must work as plain HTML: links and GET forms.
test.use({ javaScriptEnabled: false, locale: 'en-US' });

test('without JavaScript: home, language switch, latency picker and configure form work', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/en$/);
  await expect(page.locator('table#plan-table tr[data-plan]')).toHaveCount(3);

  // Switch language.
  await page.locator('a[data-testid=lang-switch]').click();
  await expect(page).toHaveURL(/\/zh$/);
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');

  // Latency city picker (a GET form).
  const picker = page.locator('#latency form');
  await picker.locator('select#city').selectOption('Tokyo');
  await picker.locator('button[type=submit], input[type=submit]').click();
  await expect(page).toHaveURL(/\/zh\?(.*&)?city=Tokyo\b/);
  await expect(page.locator('select#city')).toHaveValue('Tokyo');
  const table = page.locator('table#latency-city');
  await expect(table).toBeVisible();
  await expect(table.locator('tbody tr').first()).toBeVisible();
  // Tokyo's nearest site is Tokyo.
  await expect(table.locator('tbody tr').first()).toHaveAttribute('data-site', 'tyo');

  // Back to English (whether the query string survives the switch on the home
  // page is checked in storefront.spec.ts).
  await page.locator('a[data-testid=lang-switch]').click();
  await expect(page).toHaveURL(/\/en(\?|$)/);
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');

  // Configure form (a GET form).
  await page.locator('a[data-configure="g-ada"]').click();
  await expect(page).toHaveURL(/\/en\/configure\?plan=g-ada$/);
  const form = page.locator('form').filter({ has: page.locator('select#site') });
  await form.locator('select#plan').selectOption('g-l40s-x2');
  await form.locator('select#site').selectOption('fra');
  await form.locator('button[type=submit], input[type=submit]').click();
  await expect(page).toHaveURL(/\/en\/configure\?(?=.*\bplan=g-l40s-x2\b)(?=.*\bsite=fra\b)/);
  const summary = page.locator('#configure-summary');
  await expect(summary.locator('.price')).toContainText(PRICES['g-l40s-x2']);
  await expect(summary.locator('dd[data-stock]')).toHaveAttribute('data-stock', /^(in-stock|few)$/);

  // A sold-out choice still explains itself without script.
  await form.locator('select#plan').selectOption('g-l40s');
  await form.locator('select#site').selectOption('lax');
  await form.locator('button[type=submit], input[type=submit]').click();
  await expect(page).toHaveURL(/\/en\/configure\?(?=.*\bplan=g-l40s\b)(?=.*\bsite=lax\b)/);
  await expect(page.getByRole('alert')).toBeVisible();
  await expect(page.locator('.alternatives li[data-site] a').first()).toBeVisible();
});
