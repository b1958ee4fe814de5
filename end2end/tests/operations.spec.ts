import { test, expect } from '@playwright/test';
import { expectAccessible, logIn, orderServer, serverTab } from './helpers';

// Running a server: the serial console through the tunnel (xterm.js, served
// from our origin), the graphical console (noVNC), and snapshots taken and
// restored with the restore's progress shown in place.

test('open the serial console and answer its login prompt', async ({ page }) => {
  test.setTimeout(90_000);
  const { path: server, email } = await orderServer(page, 'consoler', 'g-ada', 'ams', 'console-1');
  await serverTab(page, 'Console');
  await expect(page).toHaveURL(new RegExp(`${server}/console$`));
  await page.getByRole('link', { name: 'Serial console' }).first().click();
  await expect(page).toHaveURL(new RegExp(`${server}/console/serial$`));
  await expect(page.locator('#console-status')).toHaveText('Connected', { timeout: 10_000 });
  const screen = page.locator('#console .xterm-rows');
  await expect(screen).toContainText('login:', { timeout: 10_000 });
  await page.locator('#console').click();
  await page.keyboard.type('root');
  await page.keyboard.press('Enter');
  await expect(screen).toContainText('Password:');
  await page.keyboard.type('not-the-password');
  await page.keyboard.press('Enter');
  await expect(screen).toContainText('Login incorrect');
  await expect(screen).not.toContainText('not-the-password');

  // Reconnecting asks for a new ticket and shows a fresh prompt.
  await page.reload();
  await expect(page.locator('#console-status')).toHaveText('Connected', { timeout: 10_000 });
  await expect(page.locator('#console .xterm-rows')).toContainText('login:');

  // The graphical console: noVNC draws the server's screen on a canvas.
  await page.getByRole('link', { name: 'Graphical console' }).click();
  await expect(page.locator('#console-status')).toHaveText('Connected', { timeout: 10_000 });
  const canvas = page.locator('#console canvas');
  await expect(canvas).toHaveCount(1);
  // The first frame follows the handshake: wait until text is drawn.
  const lit = () =>
    canvas.evaluate((c: HTMLCanvasElement) => {
      const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] > 100) n++;
      return n;
    });
  await expect.poll(lit, { message: 'text on the screen', timeout: 10_000 }).toBeGreaterThan(100);
  expect(await canvas.evaluate((c: HTMLCanvasElement) => c.width)).toBe(640);
  // …and it is on the page at a readable size, not scaled to nothing.
  const shown = await canvas.boundingBox();
  expect(shown?.width ?? 0).toBeGreaterThan(320);
  expect(shown?.height ?? 0).toBeGreaterThan(200);
  await expect(page.getByRole('button', { name: 'Send Ctrl-Alt-Del' })).toBeVisible();

  // Signing out in another tab closes an open console, and the page says why.
  await page.goto(`${server}/console/serial`);
  await expect(page.locator('#console-status')).toHaveText('Connected', { timeout: 10_000 });
  const rows = page.locator('#console .xterm-rows');
  await expect(rows).toContainText('login:', { timeout: 10_000 });
  await page.locator('#console').click();
  await page.keyboard.type('root');
  await page.keyboard.press('Enter');
  await expect(rows).toContainText('Password:');
  const other = await page.context().newPage();
  await other.goto('/en/account');
  await other.getByRole('button', { name: 'Log out' }).click();
  await expect(page.locator('#console-status')).toHaveText('Disconnected: you signed out.', { timeout: 10_000 });
  await expect(page.getByRole('button', { name: 'Reconnect' })).toBeVisible();

  // Signed in again, Reconnect opens a fresh screen: the half-typed
  // login of the last connection is gone, not left above the new prompt.
  await logIn(other, email);
  await page.getByRole('button', { name: 'Reconnect' }).click();
  await expect(page.locator('#console-status')).toHaveText('Connected', { timeout: 10_000 });
  await expect(rows).toContainText('login:', { timeout: 10_000 });
  await expect(rows).not.toContainText('Password:');
});

test('take a snapshot before a driver upgrade and restore it', async ({ page }) => {
  test.setTimeout(90_000);
  const { path: server } = await orderServer(page, 'snapper', 'g-ada', 'lon', 'snap-1');
  await serverTab(page, 'Snapshots');
  await expect(page.getByText('Snapshot before you touch drivers')).toBeVisible();
  await expect(page.getByTestId('snapshot-quota')).toHaveText('0 of 5 snapshots used');
  await page.getByLabel('Snapshot name').fill('before-driver-550');
  await page.getByRole('button', { name: 'Take snapshot' }).click();
  await expect(page).toHaveURL(new RegExp(`${server}/snapshots\\?done=snapshot`));
  // The row follows the snapshot's state without a reload (the page
  // reloads itself once nothing is busy, for the forms).
  const row = page.locator('tr[data-snapshot="before-driver-550"]');
  await expect(row).toHaveAttribute('data-state', 'ready', { timeout: 15_000 });
  await expect(row).toContainText('GB');
  await expect(page.getByTestId('snapshot-quota')).toHaveText('1 of 5 snapshots used');

  await row.getByLabel('I understand the server’s disks return to this snapshot').check();
  await row.getByRole('button', { name: 'Restore before-driver-550' }).click();
  await expect(page).toHaveURL(new RegExp(`${server}/snapshots\\?done=restore`));
  await expect(page.getByTestId('server-state')).toHaveText('Restoring snapshot');
  await expect(page.locator('#server-live [data-live="percent"]')).toHaveText(/^\d+%$/);
  await expect(page.getByTestId('server-state')).toHaveText('Running', { timeout: 30_000 });
  await serverTab(page, 'Overview');
  await expect(page.locator('li[data-event="snapshot.restore.done"]')).toHaveCount(1);
  await expectAccessible(page, 'a server with a snapshot');
});
