import { test, expect } from '@playwright/test';
import { hostNames, operator, setHost } from './helpers';

// These tests change the inventory through the operator CLI (the same binary, same
// DATABASE_URL) and expect the storefront to show the change on the very next
// request: no cache to wait out, no sleeps. Everything they change is put back.

test.describe.configure({ mode: 'serial' });

test.describe('stock changes show on the next request', () => {
  const site = 'fra';
  const plan = 'g-l40s-x2';
  let originallyFree: string[] = [];

  test.beforeAll(() => {
    originallyFree = hostNames(site, plan, 'free');
  });

  test.afterAll(() => {
    // Restore every host this file took out of service.
    const freeNow = new Set(hostNames(site, plan, 'free'));
    const errors: string[] = [];
    for (const name of originallyFree) {
      if (freeNow.has(name)) continue;
      try {
        setHost(name, 'free', 'e2e: restore');
      } catch (e) {
        errors.push(`${name}: ${String(e)}`);
      }
    }
    expect(errors, 'restoring hosts').toEqual([]);
    expect(hostNames(site, plan, 'free').sort()).toEqual([...originallyFree].sort());
  });

  test(`${site}/${plan}: all hosts to maintenance -> Sold out; one back -> Only 1 left`, async ({ page }) => {
    expect(originallyFree.length, `free ${site} ${plan} hosts in the demo inventory`).toBeGreaterThanOrEqual(2);

    const cell = page.locator(`table#stock td[data-site="${site}"][data-plan="${plan}"]`);
    await page.goto('/en');
    await expect(cell).toHaveAttribute('data-stock', /^(in-stock|few)$/);
    await expect(cell.locator('a')).toHaveCount(1);

    for (const name of originallyFree) setHost(name, 'maintenance', 'e2e: sell out');
    expect(hostNames(site, plan, 'free')).toEqual([]);

    await page.reload();
    await expect(cell).toHaveAttribute('data-stock', 'sold-out');
    await expect(cell).toHaveText(/(^|\s)Sold out$/);
    await expect(cell.locator('a')).toHaveCount(0);

    // The configure page reads the same live stock.
    await page.goto(`/en/configure?plan=${plan}&site=${site}`);
    await expect(page.getByRole('alert')).toBeVisible();
    await expect(page.locator('#configure-summary dd[data-stock]')).toHaveAttribute('data-stock', 'sold-out');
    await expect(page.locator('.alternatives li[data-site="fra"]')).toHaveCount(0);

    setHost(originallyFree[0]!, 'free', 'e2e: one back');

    await page.goto('/en');
    await expect(cell).toHaveAttribute('data-stock', 'few');
    await expect(cell).toHaveText(/(^|\s)Only 1 left$/);
    await expect(cell.locator('a')).toHaveAttribute('href', `/en/configure?plan=${plan}&site=${site}`);

    await page.goto('/zh');
    await expect(cell).toHaveText(/(^|\s)仅剩 1 台$/);

    await page.goto(`/en/configure?plan=${plan}&site=${site}`);
    await expect(page.getByRole('alert')).toHaveCount(0);
    await expect(page.locator('#configure-summary dd[data-stock]')).toHaveAttribute('data-stock', 'few');
  });
});

test.describe('racking and failing hosts', () => {
  test('lax/g-l40s-x2: hosts add -> Only 2 left; mark them failed -> Sold out again', async ({ page }) => {
    const site = 'lax';
    const plan = 'g-l40s-x2';
    const before = new Set(hostNames(site, plan));
    expect(hostNames(site, plan, 'free')).toEqual([]);

    const cell = page.locator(`table#stock td[data-site="${site}"][data-plan="${plan}"]`);
    await page.goto('/en');
    await expect(cell).toHaveAttribute('data-stock', 'sold-out');

    operator(['hosts', 'add', '--site', site, '--plan', plan, '--count', '2']);
    const added = hostNames(site, plan).filter((n) => !before.has(n));
    try {
      expect(added).toHaveLength(2);

      await page.reload();
      await expect(cell).toHaveAttribute('data-stock', 'few');
      await expect(cell).toHaveText(/(^|\s)Only 2 left$/);
    } finally {
      // Hosts can't be removed; failing them takes them out of stock again.
      for (const name of added) setHost(name, 'failed', 'e2e: undo add');
    }

    await page.reload();
    await expect(cell).toHaveAttribute('data-stock', 'sold-out');
    await expect(cell).toHaveText(/(^|\s)Sold out$/);
  });
});
