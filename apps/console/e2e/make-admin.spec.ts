import path from 'node:path';
import { screenshotAndAxe } from './support/accessibility.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';

// Issue 42: Dashboard's members are the organisation's administrators, so adding someone there asks
// first and says what it gives them, from the user's page and from the group's.
const shots = path.resolve(import.meta.dirname, '../../../screenshots/make-admin');

for (const width of [375, 1280] as const) {
  test(`at ${width} px making someone an administrator asks first, from the user and from Dashboard`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const org = await createOrganizationWithAdmin(atrium.db);
    const shot = await screenshotAndAxe(page, shots, width);
    const ada = await createUser(atrium.db, org.id, { firstName: 'Ada', lastName: 'Lovelace' });
    const bob = await createUser(atrium.db, org.id, { firstName: 'Bob', lastName: 'Lee' });
    await signInAs(org.admin);

    // From the user's page: cancel first, and nothing changes.
    await page.goto(`/users/${ada.id}`);
    await page.getByLabel('Add to group').selectOption({ label: 'Dashboard' });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const fromUser = page.getByRole('dialog', { name: 'Make Ada Lovelace an administrator?' });
    await expect(fromUser).toContainText('can add and remove users');
    await shot('from-user', fromUser);
    await fromUser.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('button', { name: 'Remove from Dashboard' })).toBeHidden();
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await fromUser.getByRole('button', { name: 'Make administrator' }).click();
    await expect(page.getByRole('button', { name: 'Remove from Dashboard' })).toBeVisible();

    // From the group: the same question.
    const dashboard = await atrium.db
      .selectFrom('groups')
      .select('id')
      .where('organization_id', '=', org.id)
      .where('is_system', '=', true)
      .executeTakeFirstOrThrow();
    await page.goto(`/groups?group=${dashboard.id}`);
    await page.getByLabel('Add people').fill('bob');
    await page.getByRole('button', { name: 'Add Bob Lee' }).click();
    const fromGroup = page.getByRole('dialog', { name: 'Make Bob Lee an administrator?' });
    await shot('from-group', fromGroup);
    await fromGroup.getByRole('button', { name: 'Make administrator' }).click();
    await expect(page.getByRole('link', { name: 'Bob Lee' })).toBeVisible();
    const members = await atrium.db
      .selectFrom('group_members')
      .select('user_id')
      .where('group_id', '=', dashboard.id)
      .execute();
    expect(members.map((m) => m.user_id).sort()).toEqual([org.admin.id, ada.id, bob.id].sort());
  });
}
