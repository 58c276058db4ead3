import type Provider from 'oidc-provider';
import type { Config } from '../config.ts';
import type { Db, DbOrTrx } from '../db/database.ts';
import {
  addressRefusedIn,
  guardedDispatcher,
  refusedWithoutLookup,
  resolveAllowed,
  type AddressPolicy,
  type AddressRefused,
} from '../lib/network-policy.ts';
import { enqueue } from '../modules/jobs/jobs.repository.ts';
import { PermanentJobError, type JobWorker } from '../modules/jobs/job-worker.ts';
import { notifyAdmins } from '../modules/notifications/notify.ts';

/**
 * OpenID Connect Back-Channel Logout 1.0: when a user's session at an app must end, the app's
 * `backchannel_logout_uri` gets a logout token (a JWT signed with the provider's keys: iss, aud,
 * iat, exp, jti, the back-channel logout event, sub, and the session's sid when one ended). Every
 * delivery is a job of the queue, retried with backoff, never a request made while the user waits.
 */
export const BACKCHANNEL_LOGOUT_JOB = 'oidc.backchannel-logout';
/** About 40 minutes of tries with the backoff below; an app down longer misses the logout. */
const MAX_ATTEMPTS = 10;
const BACKOFF = { baseMs: 5000, capMs: 15 * 60_000 };

/** One logout token to send: to the client, for the account, for one session (`sid`) or all of them. */
export interface LogoutNotice {
  clientId: string;
  accountId: string;
  sid?: string;
}

/**
 * Queues a logout token for each notice whose client has a back-channel logout URI (the others
 * are dropped). Pass the caller's transaction: the tokens go exactly when the change commits.
 */
export async function queueBackchannelLogouts(db: DbOrTrx, notices: LogoutNotice[]): Promise<number> {
  const unique = new Map(notices.map((n) => [`${n.clientId} ${n.accountId} ${n.sid ?? ''}`, n]));
  if (unique.size === 0) return 0;
  const clientIds = [...new Set([...unique.values()].map((n) => n.clientId))];
  const listening = await db
    .selectFrom('oidc_clients')
    .select('client_id')
    .where('client_id', 'in', clientIds)
    .where((eb) => eb(eb.ref('metadata', '->>').key('backchannel_logout_uri' as never), 'is not', null))
    .execute();
  const withUri = new Set(listening.map((row) => row.client_id));
  let queued = 0;
  for (const notice of unique.values()) {
    if (!withUri.has(notice.clientId)) continue;
    await enqueue(db, { kind: BACKCHANNEL_LOGOUT_JOB, payload: notice, maxAttempts: MAX_ATTEMPTS });
    queued += 1;
  }
  return queued;
}

type SendLogout = (this: unknown, sub: string, sid: string | undefined) => Promise<void>;

/**
 * oidc-provider signs and POSTs logout tokens itself while the end-session request waits, once,
 * without retries. Here its `client.backchannelLogout` only queues the token; the job calls the
 * provider's own implementation (the token is built and signed exactly as the provider does)
 * and a non-2xx answer or a network error is a failed attempt, tried again later.
 */
export function sendBackchannelLogoutsThroughQueue(provider: Provider, db: Db, worker: JobWorker): void {
  const prototype = provider.Client.prototype as unknown as { backchannelLogout: SendLogout };
  const send = prototype.backchannelLogout;
  prototype.backchannelLogout = async function (this: unknown, sub: string, sid: string | undefined) {
    const { clientId } = this as { clientId: string };
    await queueBackchannelLogouts(db, [{ clientId, accountId: sub, ...(sid ? { sid } : {}) }]);
    worker.wake();
  };
  worker.register(
    BACKCHANNEL_LOGOUT_JOB,
    async (payload, { log }) => {
      const notice = payload as LogoutNotice;
      const client = await provider.Client.find(notice.clientId);
      // Uninstalled since, or its URI removed: nobody is listening any more.
      if (!client?.backchannelLogoutUri) return;
      try {
        await send.call(client, notice.accountId, notice.sid);
      } catch (error) {
        // An address Atrium does not connect to stays refused however often it is tried.
        const refused = addressRefusedIn(error);
        if (!refused) throw error;
        const message = refusedDeliveryMessage(refused);
        await tellAdminsOfRefusedLogouts(db, notice.clientId, message);
        throw new PermanentJobError(message);
      }
      log.info({ clientId: notice.clientId }, 'back-channel logout delivered');
    },
    { backoff: BACKOFF, lockSeconds: 30 },
  );
}

const PRIVATE_NETWORKS_SETTING = 'BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS';

function refusalAdvice(refused: AddressRefused): string {
  return refused.privateNetwork
    ? `Atrium sends logout tokens there only when the operator sets ${PRIVATE_NETWORKS_SETTING}=true (apps on Atrium’s own host or network).`
    : 'Atrium never sends logout tokens there.';
}

/**
 * Why an app may not have this back-channel logout URI (checked at install and change), or null:
 * its host is an address, or localhost, that the address policy refuses (lib/network-policy.ts).
 * Names are judged by what they resolve to when a logout is delivered.
 */
export function backchannelLogoutUriProblem(
  uri: string,
  config: Pick<Config, 'backchannelLogoutPrivateNetworks'>,
): string | null {
  let host: string;
  try {
    // The URL parser writes 127.1, 0x7f000001, 2130706433 and 0177.0.0.1 as 127.0.0.1.
    host = new URL(uri).hostname;
  } catch {
    return null;
  }
  const refused = refusedWithoutLookup(host, { allowPrivate: config.backchannelLogoutPrivateNetworks });
  return refused ? `The URI’s host ${refused.message}: ${refusalAdvice(refused)}` : null;
}

function refusedDeliveryMessage(refused: AddressRefused): string {
  return `The back-channel logout URI’s host ${refused.message}: ${refusalAdvice(refused)}`;
}

/**
 * A delivery refused for its address fails for good, and the organisation's admins are told once
 * (while an earlier notice about the app is unread, no other is added): the app's URI needs
 * changing, or the operator's setting.
 */
async function tellAdminsOfRefusedLogouts(db: Db, clientId: string, message: string): Promise<void> {
  const app = await db
    .selectFrom('apps')
    .select(['id', 'organization_id', 'title'])
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  if (!app) return;
  const link = `/apps/${app.id}`;
  const unread = await db
    .selectFrom('notifications')
    .select('id')
    .where('organization_id', '=', app.organization_id)
    .where('kind', '=', LOGOUT_REFUSED)
    .where('link', '=', link)
    .where('read_at', 'is', null)
    .executeTakeFirst();
  if (unread) return;
  await notifyAdmins(db, {
    organizationId: app.organization_id,
    kind: LOGOUT_REFUSED,
    title: `Logouts are not sent to ${app.title}`,
    body: message,
    link,
  });
}

export const LOGOUT_REFUSED = 'app.logout_refused';

/**
 * The provider's outgoing requests (logout tokens) go only where the address policy allows
 * (lib/network-policy.ts): never to loopback, private or this host's addresses unless the operator
 * sets BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS=true (apps on the same host or network, and tests), and
 * never to link-local, documentation, multicast or reserved ones. The host is judged before any
 * connection, and the connection goes to the address judged (no second lookup).
 */
export function providerFetch(config: Pick<Config, 'backchannelLogoutPrivateNetworks'>) {
  const policy: AddressPolicy = {
    // Read at each request, so the setting as it is now decides (tests turn it off on a running app).
    get allowPrivate() {
      return config.backchannelLogoutPrivateNetworks;
    },
  };
  let dispatcher: object | undefined;
  return async (url: string | URL | Request, options?: RequestInit) => {
    const target = new URL(url instanceof Request ? url.url : url);
    await resolveAllowed(target.hostname, policy);
    // oidc-provider passes its own dispatcher, which checks the address only once connected.
    const { dispatcher: _theirs, ...rest } = (options ?? {}) as RequestInit & { dispatcher?: unknown };
    dispatcher ??= guardedDispatcher(policy);
    return fetch(url, { ...rest, dispatcher } as RequestInit);
  };
}

interface SessionPayload {
  accountId?: string;
  authorizations?: Record<string, { sid?: string } | undefined>;
}

/** A logout for every app signed in to in these (ended) SSO sessions, each with its own sid. */
export function noticesOfSessions(sessions: unknown[]): LogoutNotice[] {
  const notices: LogoutNotice[] = [];
  for (const session of sessions as SessionPayload[]) {
    if (!session?.accountId) continue;
    for (const [clientId, authorization] of Object.entries(session.authorizations ?? {})) {
      if (authorization?.sid)
        notices.push({ clientId, accountId: session.accountId, sid: authorization.sid });
    }
  }
  return notices;
}

/**
 * For apps whose grants ended (suspension, deletion, lost access): a logout per session the
 * user is signed in to the app with, and one without sid (every session of the user at the app)
 * where the app holds a grant but no session is left to name.
 */
export function noticesOfGrants(
  grants: Array<{ accountId: string; clientId: string }>,
  sessionNotices: LogoutNotice[],
): LogoutNotice[] {
  const covered = new Set(sessionNotices.map((n) => `${n.clientId} ${n.accountId}`));
  const bare = grants
    .filter((g) => !covered.has(`${g.clientId} ${g.accountId}`))
    .map((g) => ({ clientId: g.clientId, accountId: g.accountId }));
  return [...sessionNotices, ...bare];
}

/** Account and client of the ended grants among deleted provider rows. */
export function grantsOf(rows: Array<{ type: string; payload: unknown }>) {
  return rows.flatMap((row) => {
    const grant = row.payload as { accountId?: unknown; clientId?: unknown };
    return row.type === 'Grant' && typeof grant.accountId === 'string' && typeof grant.clientId === 'string'
      ? [{ accountId: grant.accountId, clientId: grant.clientId }]
      : [];
  });
}
