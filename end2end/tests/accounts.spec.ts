import { test, expect } from '@playwright/test';
import { createHmac } from 'node:crypto';
import { PASSWORD, lastMailLink, logIn, signUpAndConfirm } from './helpers';

// The portal's front door in a real browser: sign up, confirm through the
// development outbox, log in, invite a billing colleague who then sees
// billing access and not the owner's pages.

/** RFC 6238 TOTP (SHA-1, 6 digits, 30 s) for a base32 secret at a unix time. */
function totp(secret: string, at: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of secret.replace(/=+$/, '')) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1] & 0xf;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return value.toString().padStart(6, '0');
}

test('sign up, confirm, log in, enrol 2FA, log in with a code, invite a billing colleague', async ({ browser }) => {
  // Two sign-ups and several logins, each an argon2 hash on a 2-core debug build.
  test.setTimeout(90_000);
  const stamp = Date.now();
  const ownerEmail = `owner-${stamp}@example.com`;
  const billingEmail = `billing-${stamp}@example.com`;

  const owner = await (await browser.newContext()).newPage();
  await signUpAndConfirm(owner, ownerEmail, 'Ann Lee', 'Lee Labs');
  await logIn(owner, ownerEmail);
  await owner.goto('/en/account');
  await expect(owner.getByTestId('account-role')).toHaveText('Owner');

  // Enrol two-factor authentication, then log in again with a code.
  await owner.getByRole('link', { name: 'Two-factor authentication' }).click();
  const secret = (await owner.getByTestId('tfa-secret').textContent())!.trim();
  await owner.getByLabel('Code', { exact: true }).fill(totp(secret, Date.now() / 1000));
  await owner.getByRole('button', { name: 'Confirm and turn on' }).click();
  await expect(owner.getByTestId('recovery-codes').locator('li')).toHaveCount(10);
  await owner.goto('/en/account');
  await owner.getByRole('button', { name: 'Log out' }).click();
  await owner.goto('/en/login');
  await owner.getByLabel('Email', { exact: true }).fill(ownerEmail);
  await owner.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await owner.getByRole('button', { name: 'Log in' }).click();
  await expect(owner).toHaveURL(/\/en\/login\/code$/);
  // The next 30-second step (accepted for clock drift; the enrolment code's step is spent).
  await owner.getByLabel('Code', { exact: true }).fill(totp(secret, Date.now() / 1000 + 30));
  await owner.getByRole('button', { name: 'Log in' }).click();
  await expect(owner).toHaveURL(/\/en\/servers$/);

  await owner.getByRole('link', { name: 'Members' }).click();
  await owner.getByLabel('Email', { exact: true }).fill(billingEmail);
  await owner.getByLabel('Role', { exact: true }).selectOption('billing');
  await owner.getByRole('button', { name: 'Send invitation' }).click();
  await expect(owner.getByRole('status')).toHaveText(`Invitation sent to ${billingEmail}.`);
  const invitation = lastMailLink(billingEmail);

  const colleague = await (await browser.newContext()).newPage();
  await signUpAndConfirm(colleague, billingEmail, 'Bill', '');
  await logIn(colleague, billingEmail);
  await colleague.goto(invitation);
  await colleague.getByRole('button', { name: 'Accept invitation' }).click();
  await expect(colleague.getByTestId('account-role')).toHaveText('Billing');
  await expect(colleague.getByText('Lee Labs').first()).toBeVisible();
  // Billing users do not get the owner's pages.
  const denied = await colleague.goto('/en/members');
  expect(denied?.status()).toBe(403);
  await expect(colleague.getByRole('heading', { name: 'Not allowed' })).toBeVisible();

  // The owner's audit log shows what happened.
  await owner.goto('/en/audit');
  await expect(owner.locator('tr[data-action="member.joined"]')).toHaveCount(1);

  // Logging out ends the session.
  await owner.goto('/en/account');
  await owner.getByRole('button', { name: 'Log out' }).click();
  await expect(owner.getByTestId('notice')).toHaveText('You’re logged out.');
  await owner.goto('/en/account');
  await expect(owner).toHaveURL(/\/en\/login\?done=login$/);
});
