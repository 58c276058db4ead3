import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../src/db/database.ts';
import { signInAs, type TestSession } from '../test/support/fixtures.ts';

/**
 * A new admin (a member of the system group) of a seeded organisation, with a console session.
 * `label` names it: "Bench Admin", bench-admin-…@bench.example.com.
 */
export async function signedInBenchAdmin(
  db: Kysely<Database>,
  orgId: string,
  label: string,
): Promise<TestSession> {
  const admin = await db
    .insertInto('users')
    .values({
      organization_id: orgId,
      email: `${label.toLowerCase()}-admin-${randomBytes(3).toString('hex')}@bench.example.com`,
      first_name: label,
      last_name: 'Admin',
      name_key: `${label.toLowerCase()} admin`,
    })
    .returning(['id', 'email'])
    .executeTakeFirstOrThrow();
  await sql`insert into group_members (group_id, user_id, organization_id)
    select id, ${admin.id}::uuid, organization_id from groups where organization_id = ${orgId}::uuid and is_system`.execute(
    db,
  );
  return signInAs(db, { id: admin.id, email: admin.email, organizationId: orgId });
}
