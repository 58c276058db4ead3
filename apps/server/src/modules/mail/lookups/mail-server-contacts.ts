import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../../db/database.ts';

export type MailServerKind = 'postfix' | 'dovecot';

/** Written at most this often per kind per process, so lookups never wait on it. */
const WRITE_EVERY_MS = 60_000;

/**
 * Records when Postfix (socketmap) and Dovecot (dict) last asked this Atrium anything, in the
 * database so every process's Mail Settings sees it. A lookup only notes the time; the write
 * happens in the background and at most once a minute per kind, and a failed write is logged
 * and tried again on the next request after a minute.
 */
export function mailServerContacts(db: Db, log: FastifyBaseLogger) {
  const lastWritten = new Map<MailServerKind, number>();
  return (kind: MailServerKind): void => {
    const now = Date.now();
    if (now - (lastWritten.get(kind) ?? -Infinity) < WRITE_EVERY_MS) return;
    lastWritten.set(kind, now);
    void db
      .insertInto('mail_server_contacts')
      .values({ kind, last_asked_at: sql<Date>`now()` })
      .onConflict((oc) =>
        oc.column('kind').doUpdateSet({
          last_asked_at: sql<Date>`greatest(mail_server_contacts.last_asked_at, excluded.last_asked_at)`,
        }),
      )
      .execute()
      .catch((error: unknown) => log.warn({ err: error, kind }, 'could not record a mail server request'));
  };
}

/** When each server last asked, null for never. */
export async function mailServersLastAsked(
  db: Db,
): Promise<{ postfixLastAskedAt: string | null; dovecotLastAskedAt: string | null }> {
  const rows = await db.selectFrom('mail_server_contacts').select(['kind', 'last_asked_at']).execute();
  const at = (kind: MailServerKind) => {
    const row = rows.find((r) => r.kind === kind);
    return row ? new Date(row.last_asked_at).toISOString() : null;
  };
  return { postfixLastAskedAt: at('postfix'), dovecotLastAskedAt: at('dovecot') };
}
