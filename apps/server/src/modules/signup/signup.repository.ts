import { sql } from 'kysely';
import type { DbOrTrx, SignupStageName } from '../../db/database.ts';

/**
 * Sign-up flows are not organisation data yet (there is no organisation until the last stage),
 * so these functions take the flow id instead of an organisation id.
 */
export interface SignupFlow {
  id: string;
  stage: SignupStageName;
  organizationName: string | null;
  siteName: string | null;
  email: string | null;
  emailVerifiedAt: Date | null;
}

/** A flow lives a day after its last change (the seed spec's cookie lifetime). */
export const SIGNUP_FLOW_LIFETIME_MS = 24 * 60 * 60 * 1000;

const expiresAt = () => new Date(Date.now() + SIGNUP_FLOW_LIFETIME_MS);

export async function findLiveFlow(db: DbOrTrx, id: string): Promise<SignupFlow | undefined> {
  const row = await db
    .selectFrom('signup_flows')
    .select(['id', 'stage', 'organization_name', 'site_name', 'email', 'email_verified_at'])
    .where('id', '=', id)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    stage: row.stage,
    organizationName: row.organization_name,
    siteName: row.site_name,
    email: row.email,
    emailVerifiedAt: row.email_verified_at,
  };
}

export async function insertFlow(
  db: DbOrTrx,
  flow: { id: string; stage: SignupStageName; organizationName: string; siteName: string },
): Promise<void> {
  await db
    .insertInto('signup_flows')
    .values({
      id: flow.id,
      stage: flow.stage,
      organization_name: flow.organizationName,
      site_name: flow.siteName,
      expires_at: expiresAt(),
    })
    .execute();
}

export async function updateFlow(
  db: DbOrTrx,
  id: string,
  changes: {
    stage?: SignupStageName;
    organizationName?: string;
    siteName?: string;
    email?: string;
    emailVerifiedAt?: Date | null;
  },
): Promise<void> {
  await db
    .updateTable('signup_flows')
    .set({
      ...(changes.stage !== undefined && { stage: changes.stage }),
      ...(changes.organizationName !== undefined && { organization_name: changes.organizationName }),
      ...(changes.siteName !== undefined && { site_name: changes.siteName }),
      ...(changes.email !== undefined && { email: changes.email }),
      ...(changes.emailVerifiedAt !== undefined && { email_verified_at: changes.emailVerifiedAt }),
      updated_at: sql`now()`,
      expires_at: expiresAt(),
    })
    .where('id', '=', id)
    .execute();
}

export async function deleteFlow(db: DbOrTrx, id: string): Promise<void> {
  await db.deleteFrom('signup_flows').where('id', '=', id).execute();
}

/** Flows abandoned for a day are removed whenever a new one starts (one indexed statement). */
export async function deleteExpiredFlows(db: DbOrTrx): Promise<void> {
  await db
    .deleteFrom('signup_flows')
    .where('expires_at', '<=', sql<Date>`now()`)
    .execute();
}

/** Site names are stored lowercased, so equality is the case-insensitive check. */
export async function isSiteNameTaken(db: DbOrTrx, siteName: string): Promise<boolean> {
  const row = await db
    .selectFrom('organizations')
    .select('id')
    .where('site_name', '=', siteName)
    .executeTakeFirst();
  return row !== undefined;
}

/** E-mail addresses are stored lowercased and unique in the whole deployment. */
export async function isEmailRegistered(db: DbOrTrx, email: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  return row !== undefined;
}
