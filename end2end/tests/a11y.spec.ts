import { test, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

type AxeResults = Awaited<ReturnType<AxeBuilder['analyze']>>;

function describeViolations(violations: AxeResults['violations']): string {
  return violations
    .map((v) => {
      const nodes = v.nodes
        .slice(0, 10)
        .map((n) => `      - ${n.target.join(' ')}\n        ${n.failureSummary?.replace(/\n/g, '\n        ') ?? ''}`)
        .join('\n');
      const more = v.nodes.length > 10 ? `\n      … and ${v.nodes.length - 10} more` : '';
      return `  [${v.impact}] ${v.id}: ${v.help} (${v.nodes.length} node(s))\n    ${v.helpUrl}\n${nodes}${more}`;
    })
    .join('\n');
}

async function expectNoSeriousViolations(page: Page, label: string) {
  // axe ships `label-content-name-mismatch` (WCAG 2.5.3: a control's
  // accessible name contains its visible text) as experimental, off by
  // default: turned on here so the language switch stays named "中文"/"English".
  const results = await new AxeBuilder({ page })
    .options({ rules: { 'label-content-name-mismatch': { enabled: true } } })
    .analyze();
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  if (results.violations.length > 0) {
    console.log(`axe on ${label}: ${results.violations.length} violation(s):\n${describeViolations(results.violations)}`);
  }
  expect(serious, `serious/critical axe violations on ${label}:\n${describeViolations(serious)}`).toEqual([]);
}

const pages = [
  '/zh',
  '/en',
  '/en/configure?plan=g-l40s',
  '/en/configure?plan=g-l40s&site=fra',
  '/en/configure?plan=g-l40s&site=lax',
  '/zh/configure?plan=g-l40s&site=lax',
  '/en/login',
  '/zh/signup',
  '/en/forgot',
  // The footer's pages (issue 16).
  '/en/support',
  '/zh/support',
  '/en/terms',
  '/zh/terms',
  '/en/privacy',
  '/zh/privacy',
  '/en/imprint',
  '/zh/imprint',
];

for (const path of pages) {
  test(`axe: no serious or critical violations on ${path}`, async ({ page }) => {
    const response = await page.goto(path);
    expect(response?.status()).toBe(200);
    await expectNoSeriousViolations(page, path);
  });
}

test.describe('narrow screen (360×800)', () => {
  test.use({ viewport: { width: 360, height: 800 } });

  for (const path of ['/en', '/zh', '/en/configure?plan=g-l40s&site=lax', '/zh/terms', '/en/imprint']) {
    test(`no horizontal page scroll on ${path}`, async ({ page }) => {
      await page.goto(path);
      const overflow = () =>
        page.evaluate(() => {
          const width = document.documentElement.clientWidth;
          // Outermost elements sticking out past the right edge, to help fix a failure.
          const offenders: string[] = [];
          for (const el of Array.from(document.querySelectorAll('body *'))) {
            const r = el.getBoundingClientRect();
            if (r.right > width + 0.5 && !(el.parentElement && el.parentElement.getBoundingClientRect().right > width + 0.5)) {
              const id = el.id ? `#${el.id}` : '';
              const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
              offenders.push(`${el.tagName.toLowerCase()}${id}${cls} (right=${Math.round(r.right)})`);
            }
          }
          return { scrollWidth: document.documentElement.scrollWidth, offenders: offenders.slice(0, 15) };
        });
      const result = await overflow();
      expect(result.scrollWidth, `scrollWidth on ${path}; elements past 360px: ${result.offenders.join(', ') || 'none'}`).toBeLessThanOrEqual(360);
    });
  }
});

test.describe('latency and stock on a 360 px phone', () => {
  test.use({ viewport: { width: 360, height: 800 } });

  for (const path of ['/zh', '/en', '/en?city=Tokyo']) {
    test(`every latency and stock value is on screen on ${path}`, async ({ page }) => {
      await page.goto(path);
      const hidden = await page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        const out: string[] = [];
        const tables = Array.from(document.querySelectorAll('#latency table, #stock, #sites table'));
        if (tables.length < 3) out.push(`only ${tables.length} tables`);
        for (const table of tables) {
          // A scroll container narrower than its table hides columns.
          const box = table.closest('.table-scroll');
          if (box && box.scrollWidth > box.clientWidth + 1) out.push(`${table.id || table.className} scrolls sideways`);
          for (const cell of Array.from(table.querySelectorAll('tbody th, tbody td'))) {
            // A row folded away on a phone (all cities are one tap away) is
            // not cut off; portal-shell.spec.ts unfolds them.
            if (getComputedStyle(cell.closest('tr')!).display === 'none') continue;
            const r = cell.getBoundingClientRect();
            const text = (cell.textContent || '').trim();
            if (!text) continue;
            if (r.width === 0 || r.left < -0.5 || r.right > width + 0.5) out.push(`${text} (${Math.round(r.left)}–${Math.round(r.right)})`);
          }
        }
        return out.slice(0, 15);
      });
      expect(hidden, `cells off screen or behind a scroll on ${path}`).toEqual([]);
      // Country names, not codes, in the country or region column.
      if (path === '/zh') await expect(page.locator('#latency-all [data-country=HK]')).toHaveText('中国香港');
      if (path === '/en') await expect(page.locator('#latency-all [data-country=TW]')).toHaveText('Taiwan');
    });
  }
});
