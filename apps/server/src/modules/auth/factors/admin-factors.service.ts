import type { UserFactorsResponse } from '@atrium/contracts/user-factors';
import { sql } from 'kysely';
import type { Config } from '../../../config.ts';
import type { Db, DbOrTrx } from '../../../db/database.ts';
import { notFound } from '../../../lib/errors.ts';
import type { Mailer } from '../../../lib/mail.ts';
import { describeUserAgent } from '../../../lib/user-agent.ts';
import { recordActivity } from '../../activity/activity.repository.ts';
import {
  countUnusedRecoveryCodes,
  deleteAuthenticator,
  deleteRecoveryCodes,
  findAuthenticator,
} from './authenticator/authenticator.repository.ts';
import { countPasskeys, deletePasskey, listPasskeys } from './passkeys/passkeys.repository.ts';
import { strongestOf, strongFactorsOf } from './strong-factors.ts';
import { factorChangedMail, type FactorChange } from './strong-sign-in-mail.ts';

/**
 * A user's strong factors on their admin's page (/users/:id): what they have, and removing one
 * (a lost phone's passkey, an old app, a shared computer's trust) without resetting everything.
 * Each removal follows the rule the user's own removal follows (recovery codes go with the last
 * strong factor), is logged with the admin as actor, and the user is e-mailed, in one
 * transaction. Another organisation's user, or a factor of someone else, is a 404.
 */
export interface AdminFactorsDeps {
  db: Db;
  config: Config;
  mailer: Mailer;
}

export interface AdminActor {
  organizationId: string;
  userId: string;
  label: string;
  ip: string;
}

async function findUser(db: DbOrTrx, organizationId: string, userId: string) {
  const user = await db
    .selectFrom('users as u')
    .innerJoin('organizations as o', 'o.id', 'u.organization_id')
    .select(['u.id', 'u.email', 'u.first_name', 'u.last_name', 'o.name'])
    .where('u.id', '=', userId)
    .where('u.organization_id', '=', organizationId)
    .executeTakeFirst();
  if (!user) throw notFound('The user');
  return user;
}

export async function userFactors(
  db: Db,
  organizationId: string,
  userId: string,
): Promise<UserFactorsResponse> {
  await findUser(db, organizationId, userId);
  const owner = { organizationId, userId };
  const [passkeys, app, recoveryCodesLeft, browsers] = await Promise.all([
    listPasskeys(db, owner),
    findAuthenticator(db, owner),
    countUnusedRecoveryCodes(db, owner),
    db
      .selectFrom('trusted_browsers')
      .select(['id', 'user_agent', 'created_at', 'trusted_until', 'last_used_at'])
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .where('trusted_until', '>', sql<Date>`now()`)
      .orderBy('created_at', 'desc')
      .execute(),
  ]);
  return {
    passkeys: passkeys.map((p) => ({
      id: p.id,
      name: p.name,
      createdAt: p.created_at.toISOString(),
      lastUsedAt: p.last_used_at?.toISOString() ?? null,
    })),
    // An app being set up (not confirmed by a first code) cannot sign in yet: not shown.
    authenticator: app?.confirmed_at ? { since: app.confirmed_at.toISOString() } : null,
    recoveryCodesLeft,
    trustedBrowsers: browsers.map((b) => ({
      id: b.id,
      browser: describeUserAgent(b.user_agent ?? undefined),
      trustedAt: b.created_at.toISOString(),
      trustedUntil: b.trusted_until.toISOString(),
      lastUsedAt: b.last_used_at?.toISOString() ?? null,
    })),
  };
}

/** One removal: find the user, change, log, e-mail, all in one transaction. */
async function removeAsAdmin(
  deps: AdminFactorsDeps,
  actor: AdminActor,
  userId: string,
  removal: {
    action: string;
    change: FactorChange;
    remove: (trx: DbOrTrx, owner: { organizationId: string; userId: string }) => Promise<string | undefined>;
  },
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const user = await findUser(trx, actor.organizationId, userId);
    const owner = { organizationId: actor.organizationId, userId };
    const what = await removal.remove(trx, owner);
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: { userId: actor.userId, label: actor.label },
      action: removal.action,
      target: {
        type: 'user',
        id: userId,
        label: `${user.first_name} ${user.last_name}`.trim() || user.email,
      },
      ip: actor.ip,
      details: { by: 'admin', ...(what ? { removed: what } : {}) },
    });
    await deps.mailer.queue(
      trx,
      factorChangedMail(
        deps.config,
        { email: user.email, firstName: user.first_name, organizationName: user.name },
        removal.change,
        { at: new Date(), ip: actor.ip, byAdmin: true },
      ),
    );
  });
}

/** Without a strong factor left, recovery codes have nothing to stand in for (as on /profile). */
async function dropRecoveryCodesIfLast(trx: DbOrTrx, owner: { organizationId: string; userId: string }) {
  if (!strongestOf(await strongFactorsOf(trx, owner.userId))) await deleteRecoveryCodes(trx, owner);
}

export function removeUserPasskey(
  deps: AdminFactorsDeps,
  actor: AdminActor,
  userId: string,
  passkeyId: string,
): Promise<void> {
  return removeAsAdmin(deps, actor, userId, {
    action: 'user.passkey_removed',
    change: 'passkey-removed',
    remove: async (trx, owner) => {
      const removed = await deletePasskey(trx, owner, passkeyId);
      if (!removed) throw notFound('The passkey');
      await dropRecoveryCodesIfLast(trx, owner);
      return removed.name;
    },
  });
}

export function removeUserAuthenticator(
  deps: AdminFactorsDeps,
  actor: AdminActor,
  userId: string,
): Promise<void> {
  return removeAsAdmin(deps, actor, userId, {
    action: 'user.authenticator_removed',
    change: 'removed',
    remove: async (trx, owner) => {
      // One being set up (not confirmed yet) is not shown to the admin, and not theirs to remove.
      const existing = await findAuthenticator(trx, owner);
      if (!existing?.confirmed_at || !(await deleteAuthenticator(trx, owner))) {
        throw notFound('The authenticator app');
      }
      if ((await countPasskeys(trx, owner.userId)) === 0) await deleteRecoveryCodes(trx, owner);
      return undefined;
    },
  });
}

export function removeUserTrustedBrowser(
  deps: AdminFactorsDeps,
  actor: AdminActor,
  userId: string,
  browserId: string,
): Promise<void> {
  return removeAsAdmin(deps, actor, userId, {
    action: 'user.trusted_browser_removed',
    change: 'trusted-browser-removed',
    remove: async (trx, owner) => {
      const removed = await trx
        .deleteFrom('trusted_browsers')
        .where('organization_id', '=', owner.organizationId)
        .where('user_id', '=', owner.userId)
        .where('id', '=', browserId)
        .returning('user_agent')
        .executeTakeFirst();
      if (!removed) throw notFound('The trusted browser');
      return describeUserAgent(removed.user_agent ?? undefined);
    },
  });
}
