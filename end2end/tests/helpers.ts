import { expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SITES = ['ams', 'fra', 'lon', 'nyc', 'dal', 'lax', 'sin', 'tyo'] as const;
export const PLANS = ['g-ada', 'g-l40s', 'g-l40s-x2'] as const;

export const PRICES: Record<(typeof PLANS)[number], string> = {
  'g-ada': '€239.00',
  'g-l40s': '€749.00',
  'g-l40s-x2': '€1,420.00',
};

export const SECTION_IDS = [
  'hero',
  'plans',
  'latency',
  'passthrough',
  'workloads',
  'not-for',
  'host',
  'sites',
  'long-jobs',
  'failure',
  'faq',
] as const;

export type Lang = 'en' | 'zh';

/** What a stock cell / label must read, per level and language (a leading glyph is aria-hidden). */
export const STOCK_TEXT: Record<Lang, Record<'in-stock' | 'few' | 'sold-out', RegExp>> = {
  en: {
    'in-stock': /(^|\s)In stock$/,
    few: /(^|\s)Only \d+ left$/,
    'sold-out': /(^|\s)Sold out$/,
  },
  zh: {
    'in-stock': /(^|\s)有货$/,
    few: /(^|\s)仅剩 \d+ 台$/,
    'sold-out': /(^|\s)已售罄$/,
  },
};

/** Escape a string for use inside a RegExp. */
export function re(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function serverBin(): string {
  const bin = process.env.SERVER_BIN;
  if (!bin) throw new Error('SERVER_BIN is not set: run the suite through end2end/run.sh');
  return bin;
}

function databaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: run the suite through end2end/run.sh');
  return url;
}

/** Run an operator subcommand of the server binary against the test database. */
export function operator(args: string[]): string {
  return execFileSync(serverBin(), args, {
    // Quiet logs: callers parse stdout.
    env: { ...process.env, DATABASE_URL: databaseUrl(), RUST_LOG: 'warn' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
  });
}

/** Host names from `server hosts list ...` output (first column of each host row). */
export function hostNames(site: string, plan: string, state?: 'free' | 'maintenance' | 'failed'): string[] {
  const args = ['hosts', 'list', '--site', site, '--plan', plan];
  if (state) args.push('--state', state);
  const out = operator(args);
  const rowName = new RegExp(`^(${re(site)}-${re(plan)}-\\d+)\\s`);
  return out
    .split('\n')
    .map((line) => rowName.exec(line.trim())?.[1])
    .filter((n): n is string => !!n);
}

export function setHost(name: string, state: 'free' | 'maintenance' | 'failed', reason = 'e2e test'): void {
  operator(['hosts', 'set', name, state, '--reason', reason]);
}

/** The password every test account uses. */
export const PASSWORD = 'violet kettle harbour';

/** The newest mail to an address in the development outbox, as `server mail outbox` prints it. */
export function lastMail(to: string): string {
  return operator(['mail', 'outbox', '--to', to, '--limit', '1']);
}

/** The path and query of the first link in the newest mail to an address. */
export function lastMailLink(to: string): string {
  const out = lastMail(to);
  const match = out.match(/https?:\/\/\S+/);
  if (!match) throw new Error(`no link in mail to ${to}:\n${out}`);
  const url = new URL(match[0]);
  return url.pathname + url.search;
}

/** Signs up through the form and confirms the address with the mailed link. */
export async function signUpAndConfirm(page: Page, email: string, name: string, company: string) {
  await page.goto('/en/signup');
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Company (optional)', { exact: true }).fill(company);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.getByRole('heading', { name: 'Check your inbox' })).toBeVisible();
  await page.goto(lastMailLink(email));
  await page.getByRole('button', { name: 'Confirm email' }).click();
  await expect(page.getByTestId('notice')).toContainText('Your email is confirmed');
}

/** Logs in with the test password; a new owner lands on their servers. */
export async function logIn(page: Page, email: string) {
  await page.goto('/en/login');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page).toHaveURL(/\/en\/servers$/);
  await expect(page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Servers' }))
    .toHaveAttribute('aria-current', 'page');
}

/** No serious or critical axe violations on the page as it is now. */
export async function expectAccessible(page: Page, label: string) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const serious = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  expect(serious, `axe on ${label}`).toEqual([]);
}

/** The page, at 360 px wide, scrolls only vertically (the viewport is put back). */
export async function expectNoSideScroll(page: Page, label: string) {
  const before = page.viewportSize();
  await page.setViewportSize({ width: 360, height: 800 });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  if (before) await page.setViewportSize(before);
  expect(width, `scrollWidth at 360 px on ${label}`).toBeLessThanOrEqual(360);
}

/** Nu Html Checker errors (vnu.jar from npm, the machine's Java) for pages as served. */
export function htmlErrors(pages: { label: string; html: string }[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'vnu-'));
  try {
    const files = pages.map((p, i) => {
      const file = join(dir, `page-${i}.html`);
      writeFileSync(file, p.html);
      return file;
    });
    const jar = require.resolve('vnu-jar/build/dist/vnu.jar');
    let report = '';
    try {
      execFileSync('java', ['-jar', jar, '--errors-only', '--format', 'json', ...files], { stdio: 'pipe' });
    } catch (error: any) {
      if (error.code === 'ENOENT') throw new Error('java is required for HTML validation');
      report = String(error.stderr || error.stdout || '');
    }
    const messages: any[] = report ? JSON.parse(report).messages : [];
    return messages.map((m) => {
      const i = files.indexOf(decodeURI(m.url).replace('file:', ''));
      return `${pages[i]?.label ?? m.url}: ${m.message} (${m.extract ?? ''})`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Fills the billing profile form on the current page (the billing page or
 * the profile page the first order leads to) and saves it: a business at
 * a test address in `country`, invoices mailed to `email`.
 */
export async function fillBillingProfile(page: Page, legalName: string, country: string, email: string) {
  await page.getByLabel('Legal name').fill(legalName);
  await page.getByLabel('Street and number').fill('Teststraße 1');
  await page.getByLabel('Postal code').fill('10115');
  await page.getByLabel('City', { exact: true }).fill('Berlin');
  await page.getByLabel('Country', { exact: true }).selectOption(country);
  await page.getByLabel('Billing email').fill(email);
  await page.getByRole('button', { name: /^Save/ }).click();
}

/** Gives the signed-in owner's organization its billing profile, as it must before the first order. */
export async function giveBillingProfile(page: Page, legalName: string, country: string, email: string) {
  await page.goto('/en/billing/profile');
  await fillBillingProfile(page, legalName, country, email);
  await expect(page.getByTestId('notice')).toContainText('Billing profile saved');
}

/**
 * Racks one more host of `plan` at `site` (so stock can't run out under
 * the test), signs up, orders that plan there through the order form and
 * waits until the server runs. Answers the server page's path and the
 * account's email.
 */
export async function orderServer(
  page: Page,
  who: string,
  plan: string,
  site: string,
  name: string,
): Promise<{ path: string; email: string }> {
  operator(['hosts', 'add', '--site', site, '--plan', plan, '--count', '1']);
  const email = `${who}-${Date.now()}@example.com`;
  await signUpAndConfirm(page, email, who, `${who} Labs`);
  await logIn(page, email);
  await giveBillingProfile(page, `${who} Labs`, 'DE', email);
  await page.goto(`/en/order?plan=${plan}&site=${site}`);
  await page.getByLabel('Server name').fill(name);
  await page.getByTestId('place-order').click();
  await expect(page).toHaveURL(/\/en\/servers\/[^/?]+\?placed=1$/);
  await expect(page.getByTestId('server-state')).toHaveText('Running', { timeout: 30_000 });
  return { path: new URL(page.url()).pathname, email };
}

/** Opens one of the server page's tabs (each has its own address). */
export async function serverTab(page: Page, name: string) {
  await page.getByRole('navigation', { name: 'Server sections' }).getByRole('link', { name, exact: true }).click();
  await expect(page.getByRole('navigation', { name: 'Server sections' }).getByRole('link', { name, exact: true })).toHaveAttribute('aria-current', 'page');
}
