import { sql } from 'kysely';
import type { DbOrTrx } from '../../../db/database.ts';

export interface SessionPrincipal {
  sessionId: string;
  userId: string;
  organizationId: string;
  csrfToken: string;
  isAdmin: boolean;
  lastSeenAt: Date;
}

/** The live session behind a cookie hash, with admin status read now (Dashboard membership). */
export async function findActiveSession(
  db: DbOrTrx,
  sessionId: string,
): Promise<SessionPrincipal | undefined> {
  const row = await db
    .selectFrom('console_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select([
      's.id',
      's.user_id',
      's.organization_id',
      's.csrf_token',
      's.last_seen_at',
      sql<boolean>`exists (
        select 1 from group_members gm join groups g on g.id = gm.group_id
        where gm.user_id = u.id and g.is_system)`.as('is_admin'),
    ])
    .where('s.id', '=', sessionId)
    .where('s.expires_at', '>', sql<Date>`now()`)
    .where('u.status', '=', 'active')
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    sessionId: row.id,
    userId: row.user_id,
    organizationId: row.organization_id,
    csrfToken: row.csrf_token,
    isAdmin: row.is_admin,
    lastSeenAt: row.last_seen_at,
  };
}

export async function insertSession(
  db: DbOrTrx,
  session: {
    id: string;
    userId: string;
    organizationId: string;
    csrfToken: string;
    expiresAt: Date;
    idToken?: string | null;
    oidcSid?: string | null;
    userAgent?: string | null;
    ip?: string | null;
  },
): Promise<void> {
  await db
    .insertInto('console_sessions')
    .values({
      id: session.id,
      user_id: session.userId,
      organization_id: session.organizationId,
      csrf_token: session.csrfToken,
      expires_at: session.expiresAt,
      id_token: session.idToken ?? null,
      oidc_sid: session.oidcSid ?? null,
      user_agent: session.userAgent ?? null,
      ip: session.ip ?? null,
    })
    .execute();
}

export async function touchSession(db: DbOrTrx, sessionId: string): Promise<void> {
  await db
    .updateTable('console_sessions')
    .set({ last_seen_at: sql`now()` })
    .where('id', '=', sessionId)
    .execute();
}

export async function deleteSession(db: DbOrTrx, sessionId: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('id', '=', sessionId).execute();
}
