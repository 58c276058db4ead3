import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Config } from '../config.ts';
import { cachedRows, type CachedRows } from '../db/cached-rows.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { Db } from '../db/database.ts';
import { openClientSecret } from './client-secrets.ts';
import type { IssuedRefreshTokens } from './issued-tokens.ts';
import { holdConsume, holdDestroy, holdUpsert, sendHeldWrites, type PayloadRow } from './write-batch.ts';
import {
  findInteractionReadingAhead,
  findTokenReadingAhead,
  forgetReadAhead,
  grantKey,
  interactionKey,
  keepReadAhead,
  READS_AHEAD,
  sessionKey,
  takeReadAhead,
} from './request-prefetch.ts';

/**
 * oidc-provider's storage interface over Kysely: every model (sessions, grants, codes, tokens,
 * interactions…) is a row of `oidc_payloads`, so they survive restarts and are shared by every
 * server process. Clients are read from `oidc_clients`, owned by the console or an organisation.
 */
export function createAdapterFactory(
  db: Db,
  config: Config,
  changes?: ChangeFeed,
  issued?: IssuedRefreshTokens,
): (name: string) => Adapter {
  // Every token request reads its client; clients change rarely, and each change reaches every
  // process's copy through the change feed (a trigger on oidc_clients).
  const clients = changes ? cachedRows<AdapterPayload>(changes, 'oidc_clients') : undefined;
  return (name: string) =>
    name === 'Client' ? new ClientAdapter(db, config, clients) : new PayloadAdapter(db, name, issued);
}

/**
 * The key a model is stored under. Access tokens, refresh tokens, codes and session ids are
 * bearer credentials whose value is their id, so the table keeps only a SHA-256 of it: a reader
 * of the database (or a backup) cannot use them. Hex, so SQL computes the same key
 * (`encode(sha256(convert_to(id, 'UTF8')), 'hex')`, as the migration that hashed older rows).
 */
export const storedIdOf = (id: string) => createHash('sha256').update(id).digest('hex');

/** The payload without its `jti` (the id in clear); `find` puts it back from the id it was given. */
function withoutJti(payload: AdapterPayload): AdapterPayload {
  const { jti: _jti, ...rest } = payload;
  return rest;
}

/**
 * An interaction started by a signed-in browser carries that browser's session as oidc-provider
 * copies it (models/interaction.js): `accountId`, `uid`, `acr`, `amr` and `cookie`, the session's
 * id, the bearer value of the `_session` cookie, which Session rows keep only as its hash. The
 * provider never reads `cookie` back: resuming an interaction compares `session.uid` (and
 * `interactionDetails` checks `uid` and `accountId`), and finds the session from the browser's own
 * cookie. So `cookie` is dropped before the row is written; `uid` (a lookup key, not a
 * credential: no cookie or token carries it) stays, as in the Session row's `uid` column.
 */
function withoutSessionCookie(payload: AdapterPayload): AdapterPayload {
  const session = payload.session as (Record<string, unknown> & { cookie?: unknown }) | undefined;
  if (!session || !('cookie' in session)) return payload;
  const { cookie: _cookie, ...kept } = session;
  return { ...payload, session: kept };
}

class PayloadAdapter implements Adapter {
  private readonly db: Db;
  private readonly type: string;
  private readonly issued: IssuedRefreshTokens | undefined;

  constructor(db: Db, type: string, issued: IssuedRefreshTokens | undefined) {
    this.db = db;
    this.type = type;
    this.issued = type === 'RefreshToken' ? issued : undefined;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    this.forgetReadAheadIfChanging(id);
    const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
    const row: PayloadRow = {
      id: storedIdOf(id),
      type: this.type,
      payload: JSON.stringify(
        withoutJti(this.type === 'Interaction' ? withoutSessionCookie(payload) : payload),
      ),
      grant_id: payload.grantId ?? null,
      user_code: payload.userCode ?? null,
      uid: payload.uid ?? null,
      expires_at: expiresAt,
    };
    if (holdUpsert(row)) return;
    await sendHeldWrites(this.db, true);
    await this.db
      .insertInto('oidc_payloads')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['type', 'id']).doUpdateSet({
          payload: row.payload,
          grant_id: row.grant_id,
          user_code: row.user_code,
          uid: row.uid,
          expires_at: row.expires_at,
        }),
      )
      .execute();
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    await sendHeldWrites(this.db);
    if (this.type === 'Grant') {
      const ahead = takeReadAhead<AdapterPayload>(grantKey(id));
      if (ahead) return ahead;
    }
    // A refresh token this process issued, taken on trust and checked when its grant is stored.
    const issued = this.issued?.take(storedIdOf(id));
    if (issued) return { ...issued, jti: id };
    if (READS_AHEAD.has(this.type)) {
      const found = await findTokenReadingAhead(this.db, this.type, storedIdOf(id));
      if (!found) return undefined;
      // `consumed` tells the provider a code or rotated refresh token was already used (replay).
      const consumed = found.consumedAt ? { consumed: Math.floor(found.consumedAt.getTime() / 1000) } : {};
      return { ...found.payload, ...consumed, jti: id };
    }
    if (this.type === 'Interaction') {
      const ahead = takeReadAhead<AdapterPayload>(interactionKey(id));
      if (ahead) return ahead;
    }
    const payload =
      this.type === 'Interaction'
        ? await findInteractionReadingAhead(this.db, storedIdOf(id))
        : await this.findBy('id', storedIdOf(id));
    const found = payload && { ...payload, jti: id };
    if (found && this.type === 'Interaction') keepReadAhead(interactionKey(id), structuredClone(found));
    return found;
  }

  /**
   * Sessions by uid, for the provider's checks (interaction details, tokens bound to a session);
   * it reads them and never saves them back, so the missing `jti` is not needed.
   */
  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    await sendHeldWrites(this.db);
    if (this.type === 'Session') {
      const ahead = takeReadAhead<AdapterPayload>(sessionKey(uid));
      if (ahead) return ahead;
    }
    return this.findBy('uid', uid);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    await sendHeldWrites(this.db);
    return this.findBy('user_code', userCode);
  }

  private async findBy(
    column: 'id' | 'uid' | 'user_code',
    value: string,
  ): Promise<AdapterPayload | undefined> {
    const row = await this.db
      .selectFrom('oidc_payloads as p')
      .select([
        'p.id',
        'p.payload',
        'p.consumed_at',
        // A session whose user was suspended or deleted is no session: the provider would fail
        // loading its account, so it is dropped and the browser signs in afresh.
        sql<boolean>`p.type <> 'Session' or p.payload->>'accountId' is null or exists (
          select 1 from users u
          where u.id = (p.payload->>'accountId')::uuid and u.status = 'active')`.as('account_ok'),
      ])
      .where('p.type', '=', this.type)
      .where(`p.${column}`, '=', value)
      .where((eb) => eb.or([eb('p.expires_at', 'is', null), eb('p.expires_at', '>', sql<Date>`now()`)]))
      .executeTakeFirst();
    if (!row) return undefined;
    if (!row.account_ok) {
      await this.db
        .deleteFrom('oidc_payloads')
        .where('type', '=', this.type)
        .where('id', '=', row.id)
        .execute();
      return undefined;
    }
    // `consumed` tells the provider a code or rotated refresh token was already used (replay).
    return row.consumed_at
      ? { ...(row.payload as AdapterPayload), consumed: Math.floor(row.consumed_at.getTime() / 1000) }
      : (row.payload as AdapterPayload);
  }

  /** Grants, sessions and interactions are read ahead (request-prefetch.ts); writing one drops them. */
  private forgetReadAheadIfChanging(id?: string): void {
    if (this.type === 'Grant' || this.type === 'Session') forgetReadAhead();
    if (this.type === 'Interaction') forgetReadAhead(id === undefined ? undefined : interactionKey(id));
  }

  async consume(id: string): Promise<void> {
    if (holdConsume(this.type, storedIdOf(id))) return;
    await sendHeldWrites(this.db, true);
    await this.db
      .updateTable('oidc_payloads')
      .set({ consumed_at: sql`now()` })
      .where('type', '=', this.type)
      .where('id', '=', storedIdOf(id))
      .execute();
  }

  async destroy(id: string): Promise<void> {
    this.forgetReadAheadIfChanging(id);
    if (holdDestroy(this.type, storedIdOf(id))) return;
    await sendHeldWrites(this.db, true);
    await this.db
      .deleteFrom('oidc_payloads')
      .where('type', '=', this.type)
      .where('id', '=', storedIdOf(id))
      .execute();
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    this.forgetReadAheadIfChanging();
    await sendHeldWrites(this.db, true);
    await this.db
      .deleteFrom('oidc_payloads')
      .where('type', '=', this.type)
      .where('grant_id', '=', grantId)
      .execute();
  }
}

/** Read-only: clients are written by the console registration and by app installs. */
class ClientAdapter implements Adapter {
  private readonly db: Db;
  private readonly config: Config;
  private readonly cache: CachedRows<AdapterPayload> | undefined;

  constructor(db: Db, config: Config, cache: CachedRows<AdapterPayload> | undefined) {
    this.db = db;
    this.config = config;
    this.cache = cache;
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    return this.cache ? this.cache.get(id, () => this.read(id)) : this.read(id);
  }

  private async read(id: string): Promise<AdapterPayload | undefined> {
    const row = await this.db
      .selectFrom('oidc_clients')
      .select(['client_id', 'metadata', 'client_secret_enc'])
      .where('client_id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    const metadata: AdapterPayload = { ...(row.metadata as AdapterPayload), client_id: row.client_id };
    if (row.client_secret_enc) metadata.client_secret = openClientSecret(this.config, row.client_secret_enc);
    return metadata;
  }

  async upsert(): Promise<void> {
    throw new Error('Clients are not registered through the provider');
  }
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async consume(): Promise<void> {}
  async destroy(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
}
