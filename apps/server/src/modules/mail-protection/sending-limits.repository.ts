import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';

// The hourly sending windows (mail_sending_users, mail_sending_organizations). A window starts with
// the first recipient counted and lasts an hour; counting into an expired window starts a new one.

export async function planKeyOf(db: DbOrTrx, organizationId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('subscriptions')
    .select('plan_key')
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  return row?.plan_key;
}

/** The signed-in sender (Postfix's sasl_username) with its organisation's plan: one indexed query. */
export async function senderByLogin(db: DbOrTrx, login: string) {
  return db
    .selectFrom('users as u')
    .leftJoin('subscriptions as s', 's.organization_id', 'u.organization_id')
    .select(['u.id', 'u.organization_id', 'u.email', 'u.first_name', 'u.last_name', 's.plan_key'])
    .where('u.email', '=', login.trim().toLowerCase())
    .executeTakeFirst();
}

export type SendingScope = 'user' | 'organization';

const TABLES = {
  user: { table: 'mail_sending_users', key: 'user_id' },
  organization: { table: 'mail_sending_organizations', key: 'organization_id' },
} as const;

/**
 * Counts `recipients` into the scope's window if that keeps it within `limit`: one upsert whose
 * update applies only under the limit (or when the window is over and a new one starts). Returns
 * false, counting nothing, when it would go over.
 */
export async function countRecipients(
  db: DbOrTrx,
  scope: SendingScope,
  id: string,
  recipients: number,
  limit: number,
): Promise<boolean> {
  const { table, key } = TABLES[scope];
  const expired = sql`t.window_started_at <= now() - interval '1 hour'`;
  const { rows } = await sql<{ recipients: number }>`
    insert into ${sql.table(table)} as t (${sql.ref(key)}, window_started_at, recipients)
    values (${id}, now(), ${recipients})
    on conflict (${sql.ref(key)}) do update set
      window_started_at = case when ${expired} then now() else t.window_started_at end,
      recipients = case when ${expired} then excluded.recipients else t.recipients + excluded.recipients end,
      notified = case when ${expired} then false else t.notified end
    where ${expired} or t.recipients + excluded.recipients <= ${limit}
    returning t.recipients`.execute(db);
  return rows.length === 1;
}

/** True the first time in the scope's current window: the admins are told once per window. */
export async function firstHoldInWindow(db: DbOrTrx, scope: SendingScope, id: string): Promise<boolean> {
  const { table, key } = TABLES[scope];
  const { rows } = await sql`
    update ${sql.table(table)} set notified = true
    where ${sql.ref(key)} = ${id} and not notified
    returning 1 as one`.execute(db);
  return rows.length === 1;
}
