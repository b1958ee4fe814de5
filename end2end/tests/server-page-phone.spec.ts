import { test, expect, type Locator, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectNoSideScroll, orderServer } from './helpers';

// A server's list row and page on a 360 px phone, in both languages: the
// name and the IPv4 address are whole (one line, not cut off, not broken
// at a hyphen or a dot), and the telemetry charts' labels are readable
// (at least 11 px as rendered: the SVG scales down, the labels must not).
// Screenshots go to $E2E_SHOTS (or /tmp/gpu-e2e-shots) for a person to look at.

// Screenshots for a person to look at: E2E_SHOTS, or a folder in /tmp.
const SHOTS = process.env.E2E_SHOTS ?? join(tmpdir(), 'gpu-e2e-shots');
const NAME = 'llm-train-fra-node-01';

/** The element is on one line and nothing of it is hidden or cut. */
async function expectWhole(locator: Locator, label: string) {
  const box = await locator.evaluate((el) => {
    const rects = el.getClientRects();
    const r = el.getBoundingClientRect();
    // The nearest box that could clip it: its table cell.
    const cell = el.closest('td, th') as HTMLElement;
    const c = cell.getBoundingClientRect();
    return {
      lines: rects.length,
      left: r.left,
      right: r.right,
      cellLeft: c.left,
      cellRight: c.right,
      cellScroll: cell.scrollWidth,
      cellClient: cell.clientWidth,
      viewport: document.documentElement.clientWidth,
    };
  });
  expect(box.lines, `${label} is on one line`).toBe(1);
  expect(box.left, `${label} starts inside its cell`).toBeGreaterThanOrEqual(box.cellLeft - 0.5);
  expect(box.right, `${label} ends inside its cell`).toBeLessThanOrEqual(box.cellRight + 0.5);
  expect(box.right, `${label} ends inside the screen`).toBeLessThanOrEqual(box.viewport + 0.5);
  expect(box.cellScroll, `${label}'s cell does not scroll`).toBeLessThanOrEqual(box.cellClient);
}

async function checkList(page: Page, lang: 'en' | 'zh') {
  await page.goto(`/${lang}/servers`);
  const row = page.locator(`tr[data-server="${NAME}"]`);
  const name = row.locator('a.server-name');
  const ipv4 = row.getByTestId('server-ipv4');
  await expect(name).toHaveText(NAME);
  await expect(ipv4).toHaveText(/^198\.(18|19)\.\d{1,3}\.\d{1,3}$/);
  await expectWhole(name, `${lang}: the name`);
  await expectWhole(ipv4, `${lang}: the IPv4 address`);
  await expectNoSideScroll(page, `/${lang}/servers`);
  await page.screenshot({ path: `${SHOTS}/servers-list-360-${lang}.png`, fullPage: true });
}

async function checkServerPage(page: Page, lang: 'en' | 'zh', path: string) {
  await page.goto(`${path.replace(/^\/en\//, `/${lang}/`)}/graphs`);
  const ticks = page.locator('.chart .tick');
  await expect(ticks.first()).toBeVisible();
  const sizes = await ticks.evaluateAll((els) =>
    els.map((el) => ({
      text: el.textContent ?? '',
      px: parseFloat(getComputedStyle(el).fontSize),
      height: el.getBoundingClientRect().height,
    })),
  );
  expect(sizes.length, 'two charts, four labels each').toBeGreaterThanOrEqual(8);
  for (const s of sizes) {
    expect(s.px, `${lang}: chart label "${s.text}" font size`).toBeGreaterThanOrEqual(11);
    expect(s.height, `${lang}: chart label "${s.text}" rendered height`).toBeGreaterThanOrEqual(11);
  }
  await expectNoSideScroll(page, path);
  await page.screenshot({ path: `${SHOTS}/server-page-360-${lang}.png`, fullPage: true });
  // The whole page is too tall to read at once: its top and its charts too.
  await page.screenshot({ path: `${SHOTS}/server-page-360-${lang}-top.png` });
  await page.locator('.telemetry').screenshot({ path: `${SHOTS}/server-page-360-${lang}-telemetry.png` });
}

test('at 360 px the servers list keeps names and addresses whole and charts stay readable', async ({ page }) => {
  test.setTimeout(120_000);
  mkdirSync(SHOTS, { recursive: true });
  const { path } = await orderServer(page, 'phone', 'g-l40s', 'fra', NAME);
  await page.setViewportSize({ width: 360, height: 800 });
  for (const lang of ['en', 'zh'] as const) {
    await checkList(page, lang);
    await checkServerPage(page, lang, path);
  }

  // Scheduling a cancellation on its tab lands there, which says what
  // happened under the state line.
  await page.goto(`${path}/cancellation`);
  await page.locator('#cancel-at').selectOption({ index: 0 });
  await page.getByLabel(`Type the server’s name (${NAME}) to confirm`).fill(NAME);
  await page.getByLabel('I understand that the volumes are wiped').check();
  await page.getByRole('button', { name: 'Cancel the server' }).click();
  const notice = page.getByTestId('notice');
  await expect(notice).toContainText(/^Cancellation scheduled: the server stops on \d{4}-\d{2}-\d{2}\./);
  await expect(notice).toBeInViewport();
  await expect(page.getByTestId('server-ends')).toBeInViewport();
  await page.screenshot({ path: `${SHOTS}/server-page-360-en-cancelled.png` });
  // Taken back: said at the top too.
  await page.getByRole('button', { name: 'Keep the server (revoke the cancellation)' }).click();
  await expect(notice).toContainText(/^Cancellation revoked: the server keeps running and renews on /);
  await expect(notice).toBeInViewport();
});
