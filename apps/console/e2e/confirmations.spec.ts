import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Locator, Page } from '@playwright/test';
import { installBody } from '../../server/test/apps/helpers.ts';
import { signInAs as serverSession } from '../../server/test/support/fixtures.ts';
import { createOrganizationWithAdmin, createUser, expect, test, type Atrium } from './support/fixtures.ts';

// Issue 13 item 1: every action that cannot be taken back asks first, in one shared dialog that
// names the thing. For each: Cancel changes nothing on the page, confirming does the action.

test.use({ viewport: { width: 1280, height: 800 } });

/** The open confirmation, found by its title (the dialog is labelled by it). */
const dialogNamed = (page: Page, title: string | RegExp) => page.getByRole('dialog', { name: title });

async function cancel(dialog: Locator) {
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
}

/** Presses the dialog's confirming button, named `label`; the dialog closes. */
async function confirmWith(dialog: Locator, label: string) {
  await dialog.getByRole('button', { name: label }).click();
  await expect(dialog).toBeHidden();
}

async function installApp(atrium: Atrium, admin: Parameters<typeof serverSession>[1], title: string) {
  const session = await serverSession(atrium.db, admin);
  const res = await atrium.app.inject({
    method: 'POST',
    url: '/api/apps',
    headers: session.headers,
    payload: installBody({ title }),
  });
  expect(res.statusCode).toBe(201);
  return (res.json() as { app: { id: string } }).app.id;
}

test('suspend names the user, Escape and Cancel change nothing, Suspend suspends', async ({
  atrium,
  page,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const bob = await createUser(atrium.db, org.id, { firstName: 'Bob', lastName: 'Lee' });
  await signInAs(org.admin);
  await page.goto(`/users/${bob.id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Bob Lee' })).toBeVisible();

  const trigger = page.getByRole('button', { name: 'Suspend', exact: true });
  await trigger.click();
  const dialog = dialogNamed(page, 'Suspend Bob Lee?');
  await expect(dialog).toContainText(
    'Bob Lee will be signed out everywhere, in the console and in every app, and cannot sign in until reactivated.',
  );
  // The focus is inside (on Cancel); Escape closes and gives it back to the trigger.
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(trigger).toBeFocused();

  await trigger.click();
  await cancel(dialog);
  await expect(page.getByText('Active', { exact: true })).toBeVisible();

  await trigger.click();
  await confirmWith(dialog, 'Suspend');
  await expect(page.getByText('Suspended', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Reactivate' })).toBeVisible();
});

test('a dialog closed while its buttons are still changing style goes away', async ({
  atrium,
  page,
  signInAs,
}) => {
  // What a focus ring or a hover colour does as a dialog closes: a button inside it finishes a
  // transition of its own, and that event bubbles up to the dialog. react-bootstrap's fading
  // dialog took such an event for its own and waited for ever, leaving an invisible dialog over
  // the page (react-bootstrap issue 6153).
  const org = await createOrganizationWithAdmin(atrium.db);
  const bob = await createUser(atrium.db, org.id, { firstName: 'Bob', lastName: 'Lee' });
  await signInAs(org.admin);
  await page.goto(`/users/${bob.id}`);
  // Through the CSS object model: the console's CSP refuses inline style tags.
  await page.evaluate(() => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(`.modal-footer .btn { transition: outline-offset 1ms linear 60ms !important; }
      .modal:not(.show) .modal-footer .btn { outline-offset: 3px; }
      .modal.fade:not(.show) { opacity: 1 !important; }`);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  });
  await page.getByRole('button', { name: 'Suspend', exact: true }).click();
  await cancel(dialogNamed(page, 'Suspend Bob Lee?'));
  await page.getByRole('button', { name: 'Suspend', exact: true }).click();
  await expect(dialogNamed(page, 'Suspend Bob Lee?')).toBeVisible();
});

test('rotate secret names the app; Cancel keeps the secret, Rotate secret shows a new one', async ({
  atrium,
  page,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const appId = await installApp(atrium, org.admin, 'Acme CRM');
  await signInAs(org.admin);
  await page.goto(`/apps/${appId}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Acme CRM' })).toBeVisible();

  const open = () => page.getByRole('button', { name: 'Rotate secret' }).click();
  await open();
  const dialog = dialogNamed(page, 'Rotate the secret of Acme CRM?');
  await expect(dialog).toContainText(
    'Acme CRM will stop signing users in until you paste the new secret into its settings.',
  );
  await cancel(dialog);
  await expect(page.getByText('Copy the client secret now')).toHaveCount(0);

  await open();
  await confirmWith(dialog, 'Rotate secret');
  await expect(page.getByText('Copy the client secret now')).toBeVisible();
  expect((await page.getByLabel('Client secret', { exact: true }).inputValue()).length).toBeGreaterThan(40);
});

test('taking admin away names the person; Cancel keeps them in Dashboard, Remove admin removes them', async ({
  atrium,
  page,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const bea = await createUser(atrium.db, org.id, { firstName: 'Bea', lastName: 'Second' });
  await atrium.db
    .insertInto('group_members')
    .values({ group_id: org.dashboardGroupId, user_id: bea.id, organization_id: org.id })
    .execute();
  await signInAs(org.admin);
  await page.goto(`/users/${bea.id}`);

  const remove = page.getByRole('button', { name: 'Remove from Dashboard' });
  await remove.click();
  const dialog = dialogNamed(page, 'Take admin away from Bea Second?');
  await expect(dialog).toContainText('Bea Second will lose access to the Admin Console');
  await cancel(dialog);
  await expect(remove).toBeVisible();

  await remove.click();
  await confirmWith(dialog, 'Remove admin');
  await expect(page.getByText('Not in any group.')).toBeVisible();
  await expect(remove).toHaveCount(0);
});

test('ending a session says the device is signed out; Cancel keeps it, End session ends it', async ({
  atrium,
  page,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const uma = await createUser(atrium.db, org.id, { firstName: 'Uma', lastName: 'User' });
  await serverSession(atrium.db, uma);
  await signInAs(org.admin);
  await page.goto(`/users/${uma.id}`);
  const end = page.getByRole('button', { name: 'End session 1' });

  await end.click();
  const dialog = dialogNamed(page, 'End this session of Uma User?');
  await expect(dialog).toContainText('That device will be signed out.');
  await cancel(dialog);
  await expect(end).toBeVisible();

  await end.click();
  await confirmWith(dialog, 'End session');
  await expect(page.getByText('Not signed in anywhere.')).toBeVisible();
});

test('clear all counts what goes; Cancel keeps the notifications, Clear all removes them', async ({
  atrium,
  page,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  await sql`insert into notifications (organization_id, user_id, kind, title, body)
    select ${org.id}, ${org.admin.id}, 'user.added', 'Seeded ' || i, ''
    from generate_series(1, 3) as i`.execute(atrium.db);
  await signInAs(org.admin);
  await page.goto('/notifications');
  const list = page.getByTestId('notifications-page-list').getByTestId('notification');
  await expect(list).toHaveCount(3);

  const open = () => page.getByRole('button', { name: 'Clear all' }).click();
  await open();
  const dialog = dialogNamed(page, 'Clear all notifications?');
  await expect(dialog).toContainText('All 3 notifications will be removed.');
  await cancel(dialog);
  await expect(list).toHaveCount(3);

  await open();
  await confirmWith(dialog, 'Clear all');
  await expect(page.getByRole('heading', { name: 'No notifications' })).toBeVisible();
});

test('delete user names them; Cancel keeps them, Delete user deletes them', async ({
  atrium,
  page,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const dora = await createUser(atrium.db, org.id, {
    firstName: 'Dora',
    lastName: 'Delete',
    email: `dora-${randomBytes(3).toString('hex')}@example.com`,
  });
  await signInAs(org.admin);
  await page.goto(`/users/${dora.id}`);

  const open = () => page.getByRole('button', { name: 'Delete', exact: true }).click();
  await open();
  const dialog = dialogNamed(page, 'Delete Dora Delete?');
  await expect(dialog).toContainText(`Dora Delete (${dora.email}) will be signed out everywhere`);
  await cancel(dialog);
  await expect(page.getByRole('heading', { level: 1, name: 'Dora Delete' })).toBeVisible();

  await open();
  await dialog.getByRole('button', { name: 'Delete user' }).click();
  await expect(page).toHaveURL(/\/users$/);
  await expect(page.getByRole('cell', { name: org.admin.email })).toBeVisible();
  await expect(page.getByRole('cell', { name: dora.email })).toHaveCount(0);
});

test('uninstall names the app; Cancel keeps it, Uninstall removes it', async ({ atrium, page, signInAs }) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const appId = await installApp(atrium, org.admin, 'Team wiki');
  await signInAs(org.admin);
  await page.goto(`/apps/${appId}`);

  const open = () => page.getByRole('button', { name: 'Uninstall', exact: true }).click();
  await open();
  const dialog = dialogNamed(page, 'Uninstall Team wiki?');
  await expect(dialog).toContainText('Nobody will be able to sign in to Team wiki with Atrium any more.');
  await cancel(dialog);
  await expect(page.getByRole('heading', { level: 1, name: 'Team wiki' })).toBeVisible();

  await open();
  await dialog.getByRole('button', { name: 'Uninstall Team wiki' }).click();
  await expect(page).toHaveURL(/\/apps$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Apps' })).toBeVisible();
  await expect(page.getByText('Team wiki')).toHaveCount(0);
});

test('delete domain names it; Cancel keeps it, Delete domain erases it', async ({
  atrium,
  page,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const name = `gone-${randomBytes(3).toString('hex')}.example`;
  await atrium.db
    .insertInto('domains')
    .values({
      organization_id: org.id,
      name,
      verification_token: 'e2e'.padEnd(32, 'x'),
      dkim_private_key_enc: 'sealed',
      dkim_public_key: 'public',
    })
    .execute();
  await signInAs(org.admin);
  await page.goto('/domain');
  const row = page.getByRole('row').filter({ hasText: name });
  await expect(row).toBeVisible();

  const open = () => row.getByRole('button', { name: `Delete ${name}` }).click();
  await open();
  const dialog = dialogNamed(page, `Delete ${name}?`);
  await expect(dialog).toContainText(`${name} and its DKIM signing key will be erased.`);
  await cancel(dialog);
  await expect(row).toBeVisible();

  await open();
  await confirmWith(dialog, 'Delete domain');
  await expect(row).toHaveCount(0);
});
