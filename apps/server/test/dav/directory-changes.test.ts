import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganizationWithAdmin, createUser, type TestOrganization } from '../support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';
import { addDomain } from '../users/helpers.ts';

// The triggers of 2026_12_08_0200 keep the organisation's address book's change log whoever
// writes the directory: one version per statement, one row per card, nothing for a change no
// card shows.
let database: TestDatabase;
let org: TestOrganization;
let other: TestOrganization;

beforeAll(async () => {
  database = await createTestDatabase();
  org = await createOrganizationWithAdmin(database.db);
  other = await createOrganizationWithAdmin(database.db);
  await addDomain(database.db, org.id, 'changes.example');
});
afterAll(() => database.drop());

const versionOf = async (organizationId: string) =>
  Number(
    (
      await database.db
        .selectFrom('directory_versions')
        .select('version')
        .where('organization_id', '=', organizationId)
        .executeTakeFirst()
    )?.version ?? 0,
  );
const changedSince = async (organizationId: string, version: number) =>
  (
    await database.db
      .selectFrom('directory_cards')
      .select(['kind', 'source_id', 'present'])
      .where('organization_id', '=', organizationId)
      .where('version', '>', version)
      .orderBy('source_id')
      .execute()
  ).map((row) => ({ kind: row.kind, id: row.source_id, present: row.present }));

describe("the organisation's address book change log", () => {
  it('gives a statement that adds many users one version, and a row each', async () => {
    const before = await versionOf(org.id);
    const added = await database.db
      .insertInto('users')
      .values(
        Array.from({ length: 50 }, (_, i) => ({
          organization_id: org.id,
          email: `bulk-${i}@changes.example`,
          first_name: 'Bulk',
          last_name: String(i),
          name_key: `bulk ${i}`,
        })),
      )
      .returning('id')
      .execute();
    expect(await versionOf(org.id)).toBe(before + 1);
    expect(await changedSince(org.id, before)).toHaveLength(50);
    expect(await changedSince(other.id, 0)).not.toContainEqual(expect.objectContaining({ id: added[0]!.id }));
  });

  it('notes a rename, a suspension, an alias, a group address and its group’s name; not a sign-in', async () => {
    const user = await createUser(database.db, org.id);
    let version = await versionOf(org.id);
    await database.db
      .updateTable('users')
      .set({ last_sign_in_at: new Date() })
      .where('id', '=', user.id)
      .execute();
    expect(await versionOf(org.id)).toBe(version);

    await database.db.updateTable('users').set({ first_name: 'Augusta' }).where('id', '=', user.id).execute();
    expect(await changedSince(org.id, version)).toEqual([{ kind: 'user', id: user.id, present: true }]);

    version = await versionOf(org.id);
    const { id: domainId } = await database.db
      .selectFrom('domains')
      .select('id')
      .where('organization_id', '=', org.id)
      .executeTakeFirstOrThrow();
    await database.db
      .insertInto('mail_addresses')
      .values({
        organization_id: org.id,
        address: 'augusta@changes.example',
        kind: 'alias',
        user_id: user.id,
        domain_id: domainId,
      })
      .execute();
    expect(await changedSince(org.id, version)).toEqual([{ kind: 'user', id: user.id, present: true }]);

    version = await versionOf(org.id);
    await database.db.updateTable('users').set({ status: 'suspended' }).where('id', '=', user.id).execute();
    expect(await changedSince(org.id, version)).toEqual([{ kind: 'user', id: user.id, present: false }]);
    // A change to a card no longer there changes nothing.
    version = await versionOf(org.id);
    await database.db.updateTable('users').set({ first_name: 'Ada' }).where('id', '=', user.id).execute();
    expect(await versionOf(org.id)).toBe(version);

    const group = await database.db
      .insertInto('groups')
      .values({ organization_id: org.id, name: 'Sales', name_key: 'sales' })
      .returning('id')
      .executeTakeFirstOrThrow();
    version = await versionOf(org.id);
    const address = await database.db
      .insertInto('mail_addresses')
      .values({
        organization_id: org.id,
        address: 'sales@changes.example',
        kind: 'group',
        group_id: group.id,
        domain_id: domainId,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(await changedSince(org.id, version)).toEqual([{ kind: 'address', id: address.id, present: true }]);
    version = await versionOf(org.id);
    await database.db.updateTable('groups').set({ name: 'Sales team' }).where('id', '=', group.id).execute();
    expect(await changedSince(org.id, version)).toEqual([{ kind: 'address', id: address.id, present: true }]);
    version = await versionOf(org.id);
    await database.db.deleteFrom('groups').where('id', '=', group.id).execute();
    expect(await changedSince(org.id, version)).toEqual([
      { kind: 'address', id: address.id, present: false },
    ]);
  });

  it("changes every card when the organisation's name changes, and goes with the organisation", async () => {
    const version = await versionOf(org.id);
    const present = await database.db
      .selectFrom('directory_cards')
      .select(sql<number>`count(*)`.as('n'))
      .where('organization_id', '=', org.id)
      .where('present', '=', true)
      .executeTakeFirstOrThrow();
    await database.db
      .updateTable('organizations')
      .set({ name: 'Renamed Ltd' })
      .where('id', '=', org.id)
      .execute();
    expect(await changedSince(org.id, version)).toHaveLength(Number(present.n));
    expect(await versionOf(org.id)).toBe(version + 1);

    const leaving = await createOrganizationWithAdmin(database.db);
    await createUser(database.db, leaving.id);
    await database.db.deleteFrom('organizations').where('id', '=', leaving.id).execute();
    expect(await changedSince(leaving.id, 0)).toEqual([]);
    expect(await versionOf(leaving.id)).toBe(0);
  });
});
