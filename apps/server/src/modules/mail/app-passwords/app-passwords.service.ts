import { randomBase32, sha256 } from '../../../lib/crypto.ts';
import { conflict, notFound } from '../../../lib/errors.ts';
import { hashPassword, verifyAgainstDummy, verifyPassword } from '../../../lib/passwords.ts';
import type { Db, DbOrTrx } from '../../../db/database.ts';
import { recordActivity } from '../../activity/activity.repository.ts';
import {
  appPasswordCandidates,
  countAppPasswordsLocked,
  deleteAppPassword,
  findAppPasswordByDigest,
  insertAppPassword,
  markAppPasswordUsed,
  setAppPasswordDigest,
  type AppPasswordMatch,
  type AppPasswordRow,
} from './app-passwords.repository.ts';

/** Enough for every device a person has; also bounds what a sign-in could ever have to check. */
export const MAX_APP_PASSWORDS = 50;
/** Characters of the password stored in clear as its lookup key (of 20: 80 bits remain secret). */
const LOOKUP_LENGTH = 4;

export interface Owner {
  organizationId: string;
  userId: string;
  label: string;
  ip: string;
}

/** The signed-in user as their own app passwords' activity names them. */
export async function appPasswordOwner(
  db: Db,
  principal: { organizationId: string; userId: string },
  ip: string,
): Promise<Owner> {
  const user = await db
    .selectFrom('users')
    .select(['first_name', 'last_name'])
    .where('id', '=', principal.userId)
    .where('organization_id', '=', principal.organizationId)
    .executeTakeFirstOrThrow();
  return {
    organizationId: principal.organizationId,
    userId: principal.userId,
    label: `${user.first_name} ${user.last_name}`.trim(),
    ip,
  };
}

export const appPasswordView = (row: AppPasswordRow) => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at.toISOString(),
  lastUsedAt: row.last_used_at?.toISOString() ?? null,
});

/** 20 lowercase base-32 characters, shown in groups of five as mail clients' fields take them. */
const formatPassword = (raw: string) => raw.match(/.{5}/g)!.join('-');
/** Users may type it with or without the dashes, in either case. */
const normalize = (typed: string) => typed.replace(/[\s-]/g, '').toLowerCase();

/** What finds an app password without argon2 (2026_12_05_0100): the sha256 of all 20 characters. */
export const appPasswordDigest = (typed: string) => sha256(`app-password\u0000${normalize(typed)}`);

/** The organisation's activity log: the user did it to their own account. */
const recordOwnActivity = (trx: DbOrTrx, owner: Owner, action: string, name: string) =>
  recordActivity(trx, {
    organizationId: owner.organizationId,
    actor: { userId: owner.userId, label: owner.label },
    action,
    target: { type: 'user', id: owner.userId, label: owner.label },
    ip: owner.ip,
    details: { name },
  });

/**
 * Creates a named app password; `alsoInTransaction` does more in the same transaction (a device
 * set-up stores its profile link), so either both happen or neither.
 */
export async function createAppPassword(
  db: Db,
  owner: Owner,
  name: string,
  alsoInTransaction?: (trx: DbOrTrx, created: AppPasswordRow, password: string) => Promise<void>,
) {
  const raw = randomBase32(20);
  const passwordHash = await hashPassword(raw);
  const created = await db.transaction().execute(async (trx) => {
    if ((await countAppPasswordsLocked(trx, owner)) >= MAX_APP_PASSWORDS) {
      throw conflict(`You have ${MAX_APP_PASSWORDS} app passwords: revoke one you no longer use first`);
    }
    const row = await insertAppPassword(trx, {
      organizationId: owner.organizationId,
      userId: owner.userId,
      name,
      lookup: raw.slice(0, LOOKUP_LENGTH),
      passwordHash,
      digest: appPasswordDigest(raw),
    }).catch((error: { code?: string; constraint?: string }) => {
      if (error.code === '23505' && error.constraint === 'app_passwords_user_name_unique') {
        throw conflict(`You already have an app password named "${name}"`, {
          name: 'Choose a name you have not used yet',
        });
      }
      throw error;
    });
    await recordOwnActivity(trx, owner, 'user.app_password_created', name);
    await alsoInTransaction?.(trx, row, formatPassword(raw));
    return row;
  });
  return { appPassword: appPasswordView(created), password: formatPassword(raw) };
}

export async function revokeAppPassword(db: Db, owner: Owner, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const deleted = await deleteAppPassword(trx, owner, id);
    if (!deleted) throw notFound('App password');
    await recordOwnActivity(trx, owner, 'user.app_password_revoked', deleted.name);
  });
}

/**
 * Checks an app password for a mail sign-in: the address of an active user and one of their app
 * passwords. Answers null for unknown, suspended and wrong.
 */
export async function verifyAppPassword(db: Db, email: string, typed: string): Promise<string | null> {
  return (
    ((await findCorrectAppPassword(db, email, typed)) ?? (await verifyOlderAppPassword(db, email, typed)))
      ?.email ?? null
  );
}

/** The app password, found by its digest: one indexed read, right or wrong, no argon2. */
export async function findCorrectAppPassword(
  db: Db,
  email: string,
  typed: string,
): Promise<AppPasswordMatch | undefined> {
  const match = await findAppPasswordByDigest(db, email.toLowerCase(), appPasswordDigest(typed));
  if (match) await markAppPasswordUsed(db, match.id);
  return match;
}

/**
 * The argon2 check, for app passwords made before digests (2026_12_05_0100); a match gets its
 * digest, so the next sign-in finds it by that. Unknown, suspended and wrong all cost one argon2
 * verification and answer null.
 */
export async function verifyOlderAppPassword(
  db: Db,
  email: string,
  typed: string,
): Promise<AppPasswordMatch | null> {
  const password = normalize(typed);
  const candidates = await appPasswordCandidates(db, email.toLowerCase(), password.slice(0, LOOKUP_LENGTH));
  if (candidates.length === 0) return verifyAgainstDummy(password).then(() => null);
  for (const { password_hash: hash, ...match } of candidates) {
    if (await verifyPassword(hash, password)) {
      await setAppPasswordDigest(db, match.id, appPasswordDigest(password));
      await markAppPasswordUsed(db, match.id);
      return match;
    }
  }
  return null;
}
