import { test, expect, type Browser } from '@playwright/test';
import { lastMail, logIn, operator, signUpAndConfirm } from './helpers';

// Support, both sides: a customer asks about scaling out to eight cards
// from the storefront's step 05, staff answer with an internal note and a
// reply, the customer gets the mail, sees the reply (never the note),
// replies and closes the request. Plain forms, no JavaScript needed.

/** A staff account made with the operator command, logged in. */
async function staffPage(browser: Browser, name: string) {
  const email = `support-${Date.now()}@host.example`;
  const created = operator(['staff', 'add', '--email', email, '--name', name]);
  const password = created.split('store it now): ')[1].trim();
  const page = await (await browser.newContext()).newPage();
  await page.goto('/en/login');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page).not.toHaveURL(/\/login/);
  return page;
}

test('scaling out to eight cards: staff note and reply, the customer replies and closes', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const email = `scale-${Date.now()}@lab.example`;
  await signUpAndConfirm(page, email, 'Ada Scale', 'Scale Lab');
  await logIn(page, email);

  // The storefront's step 05 leads to the form with "scaling out" chosen.
  await page.goto('/en');
  await page.getByTestId('scale-out-link').click();
  await expect(page).toHaveURL(/\/en\/support\/requests\/new\?category=scaling/);
  await expect(page.locator('input[name="category"][value="scaling"]')).toBeChecked();
  await page.locator('#subject').fill('Scaling out to eight cards');
  await page.locator('#body').fill('We fine-tune a 70B model.\nCan we grow to eight cards in one site?');
  await page.locator('#cards').selectOption('8');
  await page.locator('#model_size').fill('70B parameters');
  await page.getByRole('button', { name: 'Send request' }).click();
  await expect(page).toHaveURL(/\/en\/support\/requests\/[^/?]+\?done=opened/);
  const customerThread = new URL(page.url()).pathname;
  const id = customerThread.split('/').pop()!;

  // Staff find it in the queue, from the staff home.
  const staff = await staffPage(browser, 'Lena Park');
  await staff.goto('/en/staff');
  await staff.locator('[data-staff-page="support"] a').click();
  await expect(staff).toHaveURL(/\/en\/staff\/support$/);
  const row = staff.locator(`tr[data-request="${id}"]`);
  await expect(row).toContainText('Scaling out to eight cards');
  await expect(row).toContainText('Scale Lab');
  await expect(row.getByTestId('first-response')).toHaveText('not yet');
  await row.getByRole('link').click();
  await expect(staff).toHaveURL(new RegExp(`/en/staff/support/${id}$`));
  await expect(staff.getByTestId('scaling-plan')).toContainText('8');
  await expect(staff.getByTestId('scaling-plan')).toContainText('70B parameters');

  // An internal note, marked as such.
  const note = 'Check fra stock of g-l40s before promising anything';
  await staff.locator('#note-body').fill(note);
  await staff.getByRole('button', { name: 'Add internal note' }).click();
  await expect(staff.getByTestId('notice')).toHaveText('Internal note added.');
  const internal = staff.locator('article[data-internal="true"]');
  await expect(internal).toContainText(note);
  await expect(internal.getByTestId('internal-badge')).toHaveText('Internal note — the customer never sees this');

  // The reply: the request waits for the customer, the first response is timed.
  const answer = 'Yes: we can rack eight L40S cards in fra within two weeks.';
  await staff.locator('#reply-body').fill(answer);
  await staff.getByRole('button', { name: 'Send reply' }).click();
  await expect(staff.getByTestId('notice')).toHaveText('Reply sent; the customer has been mailed.');
  await expect(staff.getByTestId('state')).toHaveText('Waiting for the customer');
  await expect(staff.getByTestId('first-response')).not.toHaveText('not yet');

  // The mail: a link to the request, never the note.
  const mail = lastMail(email);
  expect(mail).toContain(`/en/support/requests/${id}`);
  expect(mail).not.toContain(note);
  // The development outbox page shows it to staff too.
  await staff.goto('/en/staff/outbox');
  await expect(staff.locator(`article[data-to="${email}"]`).first()).toContainText(`/en/support/requests/${id}`);

  // The customer sees the reply, never the note; replies, then closes.
  await page.goto(customerThread);
  await expect(page.getByText(answer)).toBeVisible();
  await expect(page.getByText(note)).toHaveCount(0);
  await expect(page.getByText('Internal note')).toHaveCount(0);
  await page.locator('#reply-body').fill('Great, two weeks works for us.');
  await page.getByRole('button', { name: 'Send reply' }).click();
  await expect(page.getByText('Great, two weeks works for us.')).toBeVisible();
  await page.locator('#close-confirm').check();
  await page.getByRole('button', { name: 'Close request' }).click();
  await expect(page.getByTestId('support-closed')).toBeVisible();

  // Staff see it closed by the customer, out of the open queue.
  await staff.goto(`/en/staff/support/${id}`);
  await expect(staff.getByTestId('state')).toHaveText('Closed');
  await expect(staff.getByText('Great, two weeks works for us.')).toBeVisible();
  await staff.goto('/en/staff/support');
  await expect(staff.locator(`tr[data-request="${id}"]`)).toHaveCount(0);
  await staff.goto('/en/staff/support?state=closed');
  await expect(staff.locator(`tr[data-request="${id}"]`)).toBeVisible();
});
