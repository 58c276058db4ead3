import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOrganizationWithAdmin, createUser, type TestOrganization } from '../support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

// The triggers of 2026_12_04_0100 queue the organisation's address book job whoever writes the
// directory; these count what they queue.
let database: TestDatabase;
let org: TestOrganization;
let quiet: TestOrganization;

beforeAll(async () => {
  database = await createTestDatabase();
  org = await createOrganizationWithAdmin(database.db);
  quiet = await createOrganizationWithAdmin(database.db);
  await database.db
    .insertInto('dav_accounts')
    .values({ user_id: org.admin.id, organization_id: org.id })
    .execute();
});
afterAll(() => database.drop());
beforeEach(() => database.db.deleteFrom('jobs').execute());

const queued = async (organizationId: string) =>
  (
    await database.db
      .selectFrom('jobs')
      .select(['payload', 'status'])
      .where('kind', '=', 'dav.address-book')
      .where('organization_id', '=', organizationId)
      .execute()
  ).map((job) => ({
    ...job,
    payload: typeof job.payload === 'string' ? JSON.parse(job.payload) : job.payload,
  }));

describe("the organisation's address book job", () => {
  it('is queued once for a statement that adds many users, and not again while it waits', async () => {
    await database.db
      .insertInto('users')
      .values(
        Array.from({ length: 50 }, (_, i) => ({
          organization_id: org.id,
          email: `bulk-${i}@acme.example`,
          first_name: 'Bulk',
          last_name: String(i),
          name_key: `bulk ${i}`,
        })),
      )
      .execute();
    await createUser(database.db, org.id);
    expect(await queued(org.id)).toEqual([{ payload: { organizationId: org.id }, status: 'queued' }]);
  });

  it('is queued for a rename or a suspension, not for the write of a sign-in', async () => {
    await database.db
      .updateTable('users')
      .set({ last_sign_in_at: new Date() })
      .where('id', '=', org.admin.id)
      .execute();
    expect(await queued(org.id)).toEqual([]);
    await database.db
      .updateTable('users')
      .set({ first_name: 'Augusta' })
      .where('id', '=', org.admin.id)
      .execute();
    expect(await queued(org.id)).toHaveLength(1);
    const colleague = await createUser(database.db, org.id);
    await database.db.deleteFrom('jobs').execute();
    await database.db
      .updateTable('users')
      .set({ status: 'suspended' })
      .where('id', '=', colleague.id)
      .execute();
    expect(await queued(org.id)).toHaveLength(1);
  });

  it('is not queued for an organisation without a calendar and contacts account', async () => {
    await createUser(database.db, quiet.id);
    await database.db
      .updateTable('users')
      .set({ status: 'suspended' })
      .where('organization_id', '=', quiet.id)
      .execute();
    expect(await queued(quiet.id)).toEqual([]);
  });

  it('is not queued while the organisation is deleted', async () => {
    const leaving = await createOrganizationWithAdmin(database.db);
    await database.db
      .insertInto('dav_accounts')
      .values({ user_id: leaving.admin.id, organization_id: leaving.id })
      .execute();
    await database.db.deleteFrom('organizations').where('id', '=', leaving.id).execute();
    const left = await sql<{
      n: number;
    }>`select count(*)::int as n from jobs where organization_id = ${leaving.id}`.execute(database.db);
    expect(left.rows[0]!.n).toBe(0);
  });
});
