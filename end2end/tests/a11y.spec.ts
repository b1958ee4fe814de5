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
  const results = await new AxeBuilder({ page }).analyze();
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

  for (const path of ['/en', '/zh', '/en/configure?plan=g-l40s&site=lax']) {
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
