import { sql } from 'kysely';
import type { Db, DbOrTrx } from '../../db/database.ts';

export interface OutOfOfficeRow {
  enabled: boolean;
  first_day: string;
  last_day: string;
  subject: string;
  message: string;
  version: number;
  updated_at: Date;
}

const VIEW = ['enabled', 'first_day', 'last_day', 'subject', 'message', 'version', 'updated_at'] as const;

/** The user's own setting, within their organisation; undefined: never saved. */
export function findOutOfOffice(db: DbOrTrx, owner: { organizationId: string; userId: string }) {
  return db
    .selectFrom('out_of_office')
    .select(VIEW)
    .where('user_id', '=', owner.userId)
    .where('organization_id', '=', owner.organizationId)
    .executeTakeFirst();
}

/** Inserts or replaces the setting; every save raises `version` (the script's id for Dovecot). */
export function saveOutOfOffice(
  db: DbOrTrx,
  owner: { organizationId: string; userId: string },
  values: { enabled: boolean; firstDay: string; lastDay: string; subject: string; message: string },
) {
  const row = {
    enabled: values.enabled,
    first_day: values.firstDay,
    last_day: values.lastDay,
    subject: values.subject,
    message: values.message,
    updated_at: new Date(),
  };
  return db
    .insertInto('out_of_office')
    .values({ user_id: owner.userId, organization_id: owner.organizationId, ...row })
    .onConflict((c) => c.column('user_id').doUpdateSet({ ...row, version: sql`out_of_office.version + 1` }))
    .returning(VIEW)
    .executeTakeFirstOrThrow();
}

/** The user's aliases (at most 30): the out-of-office reply answers mail sent to them too. */
export async function aliasesOf(db: Db, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('mail_addresses')
    .select('address')
    .where('user_id', '=', userId)
    .where('kind', '=', 'alias')
    .orderBy('address')
    .limit(100)
    .execute();
  return rows.map((row) => row.address);
}

/**
 * What Dovecot's delivery asks for, by the mailbox's address: the reply of an active or suspended
 * user whose setting is on (one indexed look-up of the address, then the primary key).
 */
export function enabledOutOfOfficeOf(db: Db, address: string) {
  return db
    .selectFrom('out_of_office as o')
    .innerJoin('users as u', (join) =>
      join.onRef('u.id', '=', 'o.user_id').onRef('u.organization_id', '=', 'o.organization_id'),
    )
    .select([...VIEW.map((column) => `o.${column}` as const), 'o.user_id'])
    .where('u.email', '=', address)
    .where('o.enabled', '=', true)
    .executeTakeFirst();
}
