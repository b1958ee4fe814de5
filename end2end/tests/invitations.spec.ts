import { test, expect } from '@playwright/test';
import { PASSWORD, lastMailLink, logIn, signUpAndConfirm } from './helpers';

// Issue 17: an owner invites a colleague who has no account; the colleague
// opens the mailed link, sees who invites them where and as what, signs up
// on that page in one step and lands in the organization with the invited
// role (no organization of their own), then logs out from the header.

test('an invitee without an account signs up from the link into the organization', async ({ browser }) => {
  // A sign-up, a login and the invitee's sign-up: argon2 on a debug build.
  test.setTimeout(90_000);
  const stamp = Date.now();
  const ownerEmail = `inv-owner-${stamp}@example.com`;
  const inviteeEmail = `inv-tech-${stamp}@example.com`;

  const owner = await (await browser.newContext()).newPage();
  await signUpAndConfirm(owner, ownerEmail, 'Ann Lee', 'Lee Labs');
  await logIn(owner, ownerEmail);
  await owner.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Members' }).click();
  await owner.getByLabel('Email', { exact: true }).fill(inviteeEmail);
  await owner.getByLabel('Role', { exact: true }).selectOption('technical');
  await owner.getByRole('button', { name: 'Send invitation' }).click();
  await expect(owner.getByRole('status')).toHaveText(`Invitation sent to ${inviteeEmail}.`);
  const link = lastMailLink(inviteeEmail);

  const invitee = await (await browser.newContext()).newPage();
  await invitee.goto(link);
  await expect(invitee.getByRole('heading', { level: 1 })).toHaveText('Join Lee Labs');
  await expect(invitee.getByTestId('invite-facts')).toHaveText('Ann Lee invited you to join Lee Labs as Technical.');
  const email = invitee.getByLabel('Email', { exact: true });
  await expect(email).toHaveValue(inviteeEmail);
  await expect(email).not.toBeEditable();
  await invitee.getByLabel('Name', { exact: true }).fill('Tess');
  await invitee.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await invitee.getByRole('button', { name: 'Create account and join' }).click();

  await expect(invitee).toHaveURL(/\/en\/account\?done=joined$/);
  await expect(invitee.getByRole('status')).toHaveText('Welcome to Lee Labs. You joined as Technical.');
  await expect(invitee.getByTestId('account-role')).toHaveText('Technical');
  // Only the inviting organization: nothing to switch to.
  await expect(invitee.getByLabel('Switch organization')).toHaveCount(0);
  await expect(invitee.getByTestId('header-email')).toHaveText(inviteeEmail);
  await expect(invitee.getByTestId('header-organization')).toHaveText('Lee Labs');

  // The owner sees the new member; the pending invitation is gone.
  await owner.reload();
  await expect(owner.locator(`tr[data-member="${inviteeEmail}"]`)).toHaveCount(1);
  await expect(owner.getByText('No pending invitations.')).toBeVisible();

  // Log out from the header.
  await invitee.getByRole('button', { name: 'Log out' }).click();
  await expect(invitee).toHaveURL(/\/en\/login\?done=logout$/);
  await expect(invitee.getByTestId('account-menu')).toHaveCount(0);
  await invitee.goto('/en/account');
  await expect(invitee).toHaveURL(/\/en\/login\?done=login$/);
});
