import { test, expect, type Browser } from '@playwright/test';
import { expectAccessible, operator, orderServer } from './helpers';

// A host that still works but reports a fault: the customer is told, staff
// propose a window to replace the part, the customer accepts it, and both
// sides see the agreed window. Plain forms, no JavaScript needed.

/** A staff account made with the operator command, logged in. */
async function staffPage(browser: Browser) {
  const email = `ops-${Date.now()}@host.example`;
  const created = operator(['staff', 'add', '--email', email, '--name', 'Ops']);
  const password = created.split('store it now): ')[1].trim();
  const page = await (await browser.newContext()).newPage();
  await page.goto('/en/login');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page).not.toHaveURL(/\/login/);
  return page;
}

/** `YYYY-MM-DDTHH:00` (UTC), what the datetime-local field takes, `hours` from now. */
function hoursAhead(hours: number): string {
  return new Date(Date.now() + hours * 3_600_000).toISOString().slice(0, 13) + ':00';
}

/** Names of the allocated hosts of a site and plan. */
function allocated(site: string, plan: string): string[] {
  return operator(['hosts', 'list', '--site', site, '--plan', plan, '--state', 'allocated'])
    .split('\n')
    .map((l) => l.split(/\s+/)[0])
    .filter((n) => n.startsWith(`${site}-${plan}-`));
}

test('a degraded host: staff propose a window, the customer accepts it', async ({ page, browser }) => {
  test.setTimeout(90_000);
  const before = allocated('ams', 'g-ada');
  const { path: server, email } = await orderServer(page, 'maint', 'g-ada', 'ams', 'ams-box');
  const host = allocated('ams', 'g-ada').find((n) => !before.includes(n))!;
  expect(host).toBeTruthy();
  // Fleet health reports a fault (here through the operator command).
  operator(['hosts', 'degrade', host, '--reason', 'fan 3 failing']);
  await page.goto(server);
  await expect(page.getByTestId('host-degraded')).toContainText('reports a fault (fan 3 failing)');

  const staff = await staffPage(browser);
  await staff.goto('/en/staff/hosts');
  await expect(staff.locator(`tr[data-degraded="${host}"]`)).toContainText('fan 3 failing');
  const start = hoursAhead(48);
  await staff.locator('#propose-name').fill(host);
  await staff.locator('#propose-start').fill(start);
  await staff.locator('#propose-hours').fill('2');
  await staff.locator('#propose-note').fill('Fan swap, about 30 minutes');
  await staff.getByRole('button', { name: 'Propose the window' }).click();
  await expect(staff).toHaveURL(/\/en\/staff\/hosts\?done=1/);

  await page.goto(server);
  const proposal = page.locator('#maintenance li[data-by="staff"][data-window="proposed"]');
  await expect(proposal).toContainText(`${start.replace('T', ' ')}:00 UTC`);
  await expect(proposal).toContainText('Fan swap, about 30 minutes');
  await expectAccessible(page, 'a server with a proposed maintenance window');
  await proposal.getByRole('button', { name: 'Accept this window' }).click();
  await expect(page).toHaveURL(/\?done=maintenance-accept/);
  await expect(page.locator('#maintenance li[data-window="accepted"]')).toContainText('Accepted');
  await expect(page.locator('li[data-event="maintenance.accepted"]')).toHaveCount(1);

  // The proposal reached the owner by mail (housekeeping sends it within seconds).
  await expect
    .poll(() => operator(['mail', 'outbox', '--to', email, '--limit', '5']), { timeout: 15_000 })
    .toContain('maintenance window proposed');

  await staff.goto('/en/staff/hosts');
  const agreed = staff.locator('table.windows tr[data-window="accepted"]', { hasText: host });
  await expect(agreed).toContainText('Accepted');
});
