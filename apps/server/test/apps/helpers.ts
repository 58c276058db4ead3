import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.ts';

/** A group with the given members, written straight to the database (groups are another area). */
export async function createGroup(
  db: Kysely<Database>,
  organizationId: string,
  name: string,
  memberIds: string[] = [],
): Promise<string> {
  const group = await db
    .insertInto('groups')
    .values({ organization_id: organizationId, name, name_key: name.toLowerCase() })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (memberIds.length > 0) {
    await db
      .insertInto('group_members')
      .values(
        memberIds.map((userId) => ({ group_id: group.id, user_id: userId, organization_id: organizationId })),
      )
      .execute();
  }
  return group.id;
}

export function installBody(overrides: Record<string, unknown> = {}) {
  return {
    templateKey: 'wiki',
    title: 'Wiki',
    launchUrl: 'https://wiki.example.com',
    redirectUris: ['https://wiki.example.com/oidc/callback'],
    openToEveryone: true,
    groupIds: [],
    ...overrides,
  };
}
