import { test, expect, type Page } from '@playwright/test';
import { PLANS, PRICES, SECTION_IDS, SITES, STOCK_TEXT, re, type Lang } from './helpers';

// A browser whose preferred language is English. The locale is what Chromium turns
// into the Accept-Language header (it overrides extraHTTPHeaders for that header).
test.use({ locale: 'en-US' });

async function expectLang(page: Page, lang: Lang) {
  await expect(page).toHaveURL(new RegExp(`/${lang}(?:[/?#]|$)`));
  await expect(page.locator('html')).toHaveAttribute('lang', lang === 'zh' ? 'zh-CN' : 'en');
}

test.describe('language', () => {
  test('/ redirects by Accept-Language, and the switch toggles zh <-> en', async ({ page }) => {
    const response = await page.goto('/');
    expect(response?.ok()).toBeTruthy();
    await expect(page).toHaveURL(/\/en$/);
    await expectLang(page, 'en');

    await page.locator('a[data-testid=lang-switch]').click();
    await expect(page).toHaveURL(/\/zh$/);
    await expectLang(page, 'zh');
    await expect(page.locator('h1')).toContainText(/[\u4e00-\u9fff]/);

    await page.locator('a[data-testid=lang-switch]').click();
    await expect(page).toHaveURL(/\/en$/);
    await expectLang(page, 'en');
  });

  test('the lang cookie wins over Accept-Language on /', async ({ page }) => {
    await page.goto('/zh');
    await expectLang(page, 'zh');
    await page.goto('/');
    await expect(page).toHaveURL(/\/zh$/);
  });

  test.describe('unsupported Accept-Language', () => {
    test.use({ locale: 'fr-FR' });

    test('/ falls back to Chinese', async ({ page }) => {
      await page.goto('/');
      await expect(page).toHaveURL(/\/zh$/);
      await expectLang(page, 'zh');
    });
  });

  test('the switch keeps the page and its query string', async ({ page }) => {
    await page.goto('/en/configure?plan=g-l40s&site=fra');
    await page.locator('a[data-testid=lang-switch]').click();
    await expect(page).toHaveURL(/\/zh\/configure\?plan=g-l40s&site=fra$/);
    await expectLang(page, 'zh');
    await expect(page.locator('#site')).toHaveValue('fra');

    await page.locator('a[data-testid=lang-switch]').click();
    await expect(page).toHaveURL(/\/en\/configure\?plan=g-l40s&site=fra$/);
    await expectLang(page, 'en');
  });

  test('the switch keeps the query string on the home page (latency city)', async ({ page }) => {
    await page.goto('/en?city=Tokyo');
    await expect(page.locator('table#latency-city')).toBeVisible();
    await expect(page.locator('a[data-testid=lang-switch]')).toHaveAttribute('href', /^\/zh\?city=Tokyo$/);
    await page.locator('a[data-testid=lang-switch]').click();
    await expect(page).toHaveURL(/\/zh\?city=Tokyo$/);
    await expect(page.locator('table#latency-city')).toBeVisible();
  });
});

test.describe('home page', () => {
  for (const lang of ['en', 'zh'] as const) {
    test(`every section exists (${lang})`, async ({ page }) => {
      await page.goto(`/${lang}`);
      await expectLang(page, lang);
      for (const id of SECTION_IDS) {
        await expect(page.locator(`section#${id}`), `section#${id} on /${lang}`).toHaveCount(1);
      }
      // FAQ is a list of native disclosures; opening one needs no script.
      const first = page.locator('#faq details').first();
      await expect(first).toHaveJSProperty('open', false);
      await first.locator('summary').click();
      await expect(first).toHaveJSProperty('open', true);
      await expect(first.locator('p').first()).toBeVisible();
    });

    test(`the plan table lists three plans with prices (${lang})`, async ({ page }) => {
      await page.goto(`/${lang}`);
      const rows = page.locator('table#plan-table tbody tr[data-plan]');
      await expect(rows).toHaveCount(PLANS.length);
      const ids = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-plan')));
      expect(ids).toEqual([...PLANS]);
      for (const plan of PLANS) {
        const row = page.locator(`table#plan-table tr[data-plan="${plan}"]`);
        await expect(row.locator('.price')).toContainText(PRICES[plan]);
        const configure = row.locator(`a[data-configure="${plan}"]`);
        await expect(configure).toHaveAttribute('href', `/${lang}/configure?plan=${plan}`);
      }
    });

    test(`the stock matrix shows a level for every site and plan (${lang})`, async ({ page }) => {
      await page.goto(`/${lang}`);
      const cells = page.locator('table#stock td[data-site][data-plan]');
      await expect(cells).toHaveCount(SITES.length * PLANS.length);

      for (const site of SITES) {
        for (const plan of PLANS) {
          const cell = page.locator(`table#stock td[data-site="${site}"][data-plan="${plan}"]`);
          await expect(cell).toHaveAttribute('data-stock', /^(in-stock|few|sold-out)$/);
          const level = (await cell.getAttribute('data-stock')) as 'in-stock' | 'few' | 'sold-out';
          await expect(cell, `${site}/${plan} (${level})`).toHaveText(STOCK_TEXT[lang][level]);
          const link = cell.locator('a');
          if (level === 'sold-out') {
            await expect(link, `sold-out ${site}/${plan} must not link to configure`).toHaveCount(0);
          } else {
            await expect(link).toHaveAttribute('href', `/${lang}/configure?plan=${plan}&site=${site}`);
          }
        }
      }

      // The demo inventory: Los Angeles has no free L40S (one host, in maintenance)
      // and no dual-L40S hosts at all; Frankfurt has plenty.
      await expect(page.locator('td[data-site="lax"][data-plan="g-l40s"]')).toHaveAttribute('data-stock', 'sold-out');
      await expect(page.locator('td[data-site="lax"][data-plan="g-l40s-x2"]')).toHaveAttribute('data-stock', 'sold-out');
      for (const plan of PLANS) {
        await expect(page.locator(`td[data-site="fra"][data-plan="${plan}"]`)).toHaveAttribute('data-stock', 'in-stock');
      }

      // "Stock read at <time>" is a real, current timestamp.
      const time = page.locator('p.read-at time[datetime]');
      await expect(time).toHaveCount(1);
      const datetime = await time.getAttribute('datetime');
      const readAt = Date.parse(datetime ?? '');
      expect(Number.isNaN(readAt), `datetime=${datetime}`).toBe(false);
      expect(Math.abs(Date.now() - readAt)).toBeLessThan(5 * 60_000);
    });
  }

  test('the plan table availability agrees with the stock matrix (en)', async ({ page }) => {
    await page.goto('/en');
    for (const plan of PLANS) {
      const available = await page
        .locator(`table#stock td[data-plan="${plan}"]:not([data-stock="sold-out"])`)
        .count();
      await expect(page.locator(`tr[data-plan="${plan}"] .availability`)).toHaveText(
        new RegExp(`\\b${available} sites?\\b`),
      );
    }
  });
});

test.describe('configure', () => {
  test('Configure G-L40S, pick Frankfurt, then sold-out Los Angeles and follow an alternative', async ({ page }) => {
    await page.goto('/en');
    await page.locator('a[data-configure="g-l40s"]').click();
    await expect(page).toHaveURL(/\/en\/configure\?plan=g-l40s$/);
    await expect(page.locator('h1')).toBeVisible();
    await expect(page.locator('#plan')).toHaveValue('g-l40s');
    await expect(page.locator('#configure-summary')).toContainText('€749.00');

    const form = page.locator('form').filter({ has: page.locator('select#site') });
    const submit = form.locator('button[type=submit], input[type=submit]');

    // Frankfurt: priced and in stock.
    await page.locator('#site').selectOption('fra');
    await submit.click();
    await expect(page).toHaveURL(/\/en\/configure\?(?=.*\bplan=g-l40s\b)(?=.*\bsite=fra\b)/);
    const summary = page.locator('#configure-summary');
    await expect(summary.locator('.price')).toContainText('€749.00');
    await expect(summary.locator('dd[data-stock]')).toHaveAttribute('data-stock', /^(in-stock|few)$/);
    await expect(summary.locator('dd[data-stock]')).toHaveText(/(In stock|Only \d+ left)$/);
    await expect(page.getByRole('alert')).toHaveCount(0);

    // Los Angeles: sold out, with alternatives.
    await page.locator('#site').selectOption('lax');
    await submit.click();
    await expect(page).toHaveURL(/\/en\/configure\?(?=.*\bplan=g-l40s\b)(?=.*\bsite=lax\b)/);
    await expect(page.getByRole('alert')).toBeVisible();
    await expect(page.getByRole('alert')).toContainText(/sold out/i);
    await expect(summary.locator('dd[data-stock]')).toHaveAttribute('data-stock', 'sold-out');

    const alternatives = page.locator('.alternatives li[data-site]');
    await expect(alternatives.first()).toBeVisible();
    const altSites = await alternatives.evaluateAll((lis) => lis.map((li) => li.getAttribute('data-site')));
    expect(altSites.length).toBeGreaterThan(0);
    expect(altSites).not.toContain('lax');
    expect(altSites).toContain('fra');
    for (const site of altSites) {
      await expect(page.locator(`.alternatives li[data-site="${site}"] a`)).toHaveAttribute(
        'href',
        new RegExp(`^/en/configure\\?(?=.*\\bplan=g-l40s\\b)(?=.*\\bsite=${re(site!)}(&|$))`),
      );
    }

    // Follow one: it is available.
    const target = altSites[0]!;
    await page.locator(`.alternatives li[data-site="${target}"] a`).click();
    await expect(page).toHaveURL(new RegExp(`\\bsite=${re(target)}\\b`));
    await expect(page.locator('#site')).toHaveValue(target);
    await expect(page.getByRole('alert')).toHaveCount(0);
    await expect(summary.locator('dd[data-stock]')).toHaveAttribute('data-stock', /^(in-stock|few)$/);
    await expect(summary.locator('.price')).toContainText('€749.00');
  });

  test('sold-out alert is shown in Chinese too', async ({ page }) => {
    await page.goto('/zh/configure?plan=g-l40s&site=lax');
    await expectLang(page, 'zh');
    await expect(page.getByRole('alert')).toContainText('已售罄');
    await expect(page.locator('.alternatives li[data-site] a').first()).toHaveAttribute('href', /^\/zh\/configure\?/);
  });
});
