import { AsyncLocalStorage } from 'node:async_hooks';
import { sql, type RawBuilder } from 'kysely';
import type { AdapterPayload } from 'oidc-provider';
import type { Db } from '../db/database.ts';

/**
 * What one provider request will ask for next, read ahead in the same statement: a token's
 * grant, its session and its account are looked up one after another by the provider (a refresh
 * grant would cost four round trips), so the token's lookup joins them and keeps them here for the
 * rest of this request only. Each is handed out once; any write in the request drops them all.
 */
const scope = new AsyncLocalStorage<RequestReads>();

/** What one request has read ahead, and whether it may answer a refresh from a token it issued. */
export interface RequestReads {
  values: Map<string, unknown>;
  /** A refresh grant may start from this process's copy of its token (issued-tokens.ts). */
  issuedTokens: boolean;
  /** That copy turned out stale: nothing was written or answered, and the request runs again. */
  retryUncached: boolean;
}

export const newRequestReads = (issuedTokens = false): RequestReads => ({
  values: new Map(),
  issuedTokens,
  retryUncached: false,
});

/** Runs one provider or sign-in request with its own read-ahead (oidc/mount.ts, identity.plugin.ts). */
export const withReadAhead = <T>(work: () => T, reads = newRequestReads()): T => scope.run(reads, work);

/** This request's reads, if it is a provider or sign-in request. */
export const requestReads = (): RequestReads | undefined => scope.getStore();

export function takeReadAhead<T>(key: string): T | undefined {
  const store = scope.getStore()?.values;
  const value = store?.get(key) as T | undefined;
  if (value !== undefined) store!.delete(key);
  return value;
}

/** Keeps what this request read for the next time it asks (a no-op outside a provider request). */
export const keepReadAhead = (key: string, value: unknown) => void scope.getStore()?.values.set(key, value);

/** A write in this request: what was read ahead may no longer be what the database holds. */
export const forgetReadAhead = (key?: string) =>
  key === undefined ? scope.getStore()?.values.clear() : scope.getStore()?.values.delete(key);

export interface AccountRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  organization_id: string;
}

export const grantKey = (grantId: string) => `Grant:${grantId}`;
export const sessionKey = (uid: string) => `Session:${uid}`;
export const accountKey = (id: string) => `Account:${id}`;
/** The sign-in endpoints read the interaction, then finish it (which reads it again). */
export const interactionKey = (id: string) => `Interaction:${id}`;

/** Models that carry a grant, a session and an account: worth reading ahead for. */
export const READS_AHEAD = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken']);

/**
 * A token by its stored id with its grant, session and (active) account, in one statement. Outside
 * a provider request there is nowhere to keep them, and only the token is read.
 */
export async function findTokenReadingAhead(
  db: Db,
  type: string,
  storedId: string,
): Promise<{ payload: AdapterPayload; consumedAt: Date | null } | undefined> {
  const { rows } = await sql<
    {
      payload: AdapterPayload;
      consumed_at: Date | null;
      grant_payload: AdapterPayload | null;
      session_payload: AdapterPayload | null;
    } & UserColumns
  >`
    select p.payload, p.consumed_at, g.payload as grant_payload, s.payload as session_payload,
      u.id as user_id, u.email, u.first_name, u.last_name, u.organization_id
    from oidc_payloads p
    left join oidc_payloads g on g.type = 'Grant' and p.grant_id is not null
      and g.id = encode(sha256(convert_to(p.grant_id, 'UTF8')), 'hex')
      and (g.expires_at is null or g.expires_at > now())
    left join oidc_payloads s on s.type = 'Session' and s.uid = p.payload ->> 'sessionUid'
      and (s.expires_at is null or s.expires_at > now())
    left join ${activeUser(sql`p.payload ->> 'accountId'`)}
    where p.type = ${type} and p.id = ${storedId}
      and (p.expires_at is null or p.expires_at > now())`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  if (scope.getStore()) {
    const grantId = row.payload.grantId;
    const sessionUid = row.payload.sessionUid;
    // A session is kept only when its account is this active one; anything else takes the
    // ordinary path, which drops a session whose user is gone (adapter.ts).
    const session =
      row.session_payload && typeof sessionUid === 'string' && row.session_payload.accountId === row.user_id
        ? { uid: sessionUid, payload: row.session_payload }
        : undefined;
    const account = accountOf(row);
    keepTokenReads({
      grant:
        row.grant_payload && typeof grantId === 'string'
          ? { id: grantId, payload: row.grant_payload }
          : undefined,
      session,
      account,
    });
  }
  return { payload: row.payload, consumedAt: row.consumed_at };
}

/** What a token's lookup read with it: the rows the provider asks for next. */
export interface TokenReads {
  grant: { id: string; payload: AdapterPayload } | undefined;
  session: { uid: string; payload: AdapterPayload } | undefined;
  account: AccountRow | undefined;
}

/** Keys the token's reads for the provider's next questions, and remembers them together. */
export function keepTokenReads(reads: TokenReads): void {
  const { grant, session, account } = reads;
  if (grant) keepReadAhead(grantKey(grant.id), { ...grant.payload, jti: grant.id });
  if (session) keepReadAhead(sessionKey(session.uid), session.payload);
  if (account) keepReadAhead(accountKey(account.id), account);
  keepReadAhead(TOKEN_READS, reads);
}

/**
 * What this request's token lookup read, unless the request wrote a grant or a session since
 * (which forgets every read-ahead): a new refresh token of the same grant starts from the same rows.
 */
export const tokenReadsOfRequest = (): TokenReads | undefined =>
  scope.getStore()?.values.get(TOKEN_READS) as TokenReads | undefined;

const TOKEN_READS = 'TokenReads';

/** What `checkClientAccess` reads of a client and a user (client-access.ts). */
export interface ClientAccessRow {
  organization_id: string | null;
  metadata: unknown;
  user_organization_id: string | null;
  app_id: string | null;
}

export const clientAccessKey = (userId: string, clientId: string) => `ClientAccess:${userId}:${clientId}`;

/**
 * An interaction by its stored id, with the active account it logged in and what the access
 * check reads of that account and the interaction's client (at resume, the provider asks for the
 * account next, and then whether the client is open to it): one statement instead of three.
 */
export async function findInteractionReadingAhead(
  db: Db,
  storedId: string,
): Promise<AdapterPayload | undefined> {
  const { rows } = await sql<
    {
      payload: AdapterPayload;
      client_id: string | null;
      client_organization_id: string | null;
      metadata: unknown;
      app_id: string | null;
    } & UserColumns
  >`
    select p.payload, u.id as user_id, u.email, u.first_name, u.last_name, u.organization_id,
      c.client_id, c.organization_id as client_organization_id, c.metadata, a.id as app_id
    from oidc_payloads p
    left join ${activeUser(sql`p.payload #>> '{result,login,accountId}'`)}
    left join oidc_clients c on u.id is not null and c.client_id = p.payload #>> '{params,client_id}'
    left join apps a on a.organization_id = c.organization_id and a.client_id = c.client_id
    where p.type = 'Interaction' and p.id = ${storedId}
      and (p.expires_at is null or p.expires_at > now())`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  keepAccount(row);
  if (row.user_id && row.client_id) {
    const access: ClientAccessRow = {
      organization_id: row.client_organization_id,
      metadata: row.metadata,
      user_organization_id: row.organization_id,
      app_id: row.app_id,
    };
    keepReadAhead(clientAccessKey(row.user_id, row.client_id), access);
  }
  return row.payload;
}

/** `users u`, the active user whose id is the text `accountId` (anything else joins no row). */
const activeUser = (accountId: RawBuilder<unknown>) => sql`users u on u.status = 'active' and u.id = case
  when ${accountId} ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
  then (${accountId})::uuid end`;

/** The columns of `activeUser` a read-ahead selects. */
interface UserColumns {
  user_id: string | null;
  email: string;
  first_name: string;
  last_name: string;
  organization_id: string;
}

/** Keeps the account read with something else for `findAccountClaims` (account.ts). */
function keepAccount(row: UserColumns): void {
  const account = accountOf(row);
  if (account) keepReadAhead(accountKey(account.id), account);
}

function accountOf(row: UserColumns): AccountRow | undefined {
  if (!row.user_id) return undefined;
  return {
    id: row.user_id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    organization_id: row.organization_id,
  };
}
