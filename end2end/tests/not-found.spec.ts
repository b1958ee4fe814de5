import { test, expect } from '@playwright/test';

const cases = [
  { path: '/en/does-not-exist', lang: 'en', htmlLang: 'en', h1: /can.t find that page/i },
  { path: '/zh/does-not-exist', lang: 'zh', htmlLang: 'zh-CN', h1: /找不到这个页面/ },
] as const;

for (const c of cases) {
  test(`404 page in ${c.lang}: ${c.path}`, async ({ page }) => {
    const response = await page.goto(c.path);
    expect(response, 'a response').not.toBeNull();
    expect(response!.status()).toBe(404);
    expect(response!.headers()['content-type']).toMatch(/^text\/html/);
    await expect(page.locator('html')).toHaveAttribute('lang', c.htmlLang);
    await expect(page.locator('h1')).toHaveCount(1);
    await expect(page.locator('h1')).toHaveText(c.h1);
    // A designed page, not a bare error: it keeps the site header with the language switch.
    await expect(page.locator('a[data-testid=lang-switch]')).toBeVisible();
  });
}

// Short pages keep their footer at the bottom of the window, on a desk
// and on a phone, in both languages (issue 33).
for (const [width, height] of [[1280, 900], [360, 740]] as const) {
  for (const path of ['/en/login', '/zh/does-not-exist']) {
    test(`the footer sits at the bottom of ${path} at ${width} px`, async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.goto(path);
      const footer = await page.locator('footer.site-footer').boundingBox();
      expect(footer, 'the footer is shown').not.toBeNull();
      const pageHeight = await page.evaluate(() => document.documentElement.scrollHeight);
      // Its bottom edge is the page's (no gap below it), and the page
      // fills at least the window.
      expect(Math.round(footer!.y + footer!.height)).toBeGreaterThanOrEqual(pageHeight - 1);
      expect(pageHeight).toBeGreaterThanOrEqual(height);
    });
  }
}
