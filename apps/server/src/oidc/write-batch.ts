import { AsyncLocalStorage } from 'node:async_hooks';
import { sql, type RawBuilder } from 'kysely';
import type Provider from 'oidc-provider';
import type { Db } from '../db/database.ts';
import { requestReads } from './request-prefetch.ts';

/** One row of `oidc_payloads` as the adapter writes it. */
export interface PayloadRow {
  id: string;
  type: string;
  payload: string;
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
  expires_at: Date | null;
}

/**
 * The writes of one provider request, held until it has answered and then sent in one statement:
 * a refresh grant consumes the old token and stores the new one and an access token, three round
 * trips one after another (issue 18). Deletes are held too. A read (or a revocation by grant) sends
 * what is held first, so the request always reads its own writes; nothing is answered before the
 * batch is stored.
 */
interface Batch {
  upserts: Map<string, PayloadRow>;
  consumes: Map<string, { type: string; id: string }>;
  destroys: Map<string, { type: string; id: string }>;
  /** What the request took on trust and the database must still hold for its writes to count. */
  guard: RawBuilder<boolean> | undefined;
  /** The guard failed while the request ran (whatever the provider made of the error). */
  stale: boolean;
}

/** How the held writes ended: stored; refused, a code or token being used already; or not tried. */
type Outcome = 'stored' | 'consumed' | 'stale';

const scope = new AsyncLocalStorage<Batch>();
const keyOf = (type: string, id: string) => `${type}:${id}`;
/** Whether a row already waits for another kind of write (one statement may touch a row once). */
const waits = (batch: Batch, key: string) =>
  batch.upserts.has(key) || batch.consumes.has(key) || batch.destroys.has(key);

/**
 * Holds an upsert for the end of the request; false outside a provider request, or when its row
 * waits to be consumed or deleted (then the caller sends what is held and writes at once, in order).
 */
export function holdUpsert(row: PayloadRow): boolean {
  const batch = scope.getStore();
  const key = keyOf(row.type, row.id);
  if (!batch || batch.consumes.has(key) || batch.destroys.has(key)) return false;
  batch.upserts.set(key, row);
  return true;
}

/** Holds a consume for the end of the request; false outside one, or when its row waits too. */
export function holdConsume(type: string, id: string): boolean {
  const batch = scope.getStore();
  if (!batch || waits(batch, keyOf(type, id))) return false;
  batch.consumes.set(keyOf(type, id), { type, id });
  return true;
}

/** Holds a delete (an interaction once finished, say) likewise. */
export function holdDestroy(type: string, id: string): boolean {
  const batch = scope.getStore();
  if (!batch || waits(batch, keyOf(type, id))) return false;
  batch.destroys.set(keyOf(type, id), { type, id });
  return true;
}

/**
 * Makes this request's writes, and its answer, depend on `guard` still holding when they are
 * stored (issued-tokens.ts); false outside a provider request, where nothing could be held.
 */
export function holdOnlyIf(guard: RawBuilder<boolean>): boolean {
  const batch = scope.getStore();
  if (!batch || batch.guard) return false;
  batch.guard = guard;
  return true;
}

/**
 * Sends what this request holds, before a read or a write that must see it. Before a write, a
 * guard is checked even with nothing held: what is written must not rest on a stale copy.
 */
export async function sendHeldWrites(db: Db, beforeWrite = false): Promise<void> {
  const batch = scope.getStore();
  const held = batch && (batch.upserts.size || batch.consumes.size || batch.destroys.size);
  if (batch && (held || (beforeWrite && batch.guard))) {
    const outcome = await send(db, batch);
    if (outcome === 'consumed') throw new ConsumedMeanwhile();
    if (outcome === 'stale') {
      batch.stale = true;
      throw new StaleTrust();
    }
  }
}

class ConsumedMeanwhile extends Error {
  constructor() {
    super('a code or refresh token was used by two requests at once');
  }
}

class StaleTrust extends Error {
  constructor() {
    super('a row the request took on trust changed meanwhile');
  }
}

/**
 * Every provider request holds its writes until it has answered; they are stored before the answer
 * is written. A code or refresh token consumed by another request in the meantime (two requests
 * racing with one token) stores nothing, revokes the grant as a replay does, and answers
 * invalid_grant; a database failure answers the provider's own server_error. A request that took a
 * row on trust which has changed since stores nothing and answers nothing: it runs again, reading
 * the database (oidc/mount.ts). `onStored` sees every batch stored at the end of a request.
 */
export function holdWritesUntilAnswered(
  provider: Provider,
  db: Db,
  onStored: (upserts: PayloadRow[]) => void = () => {},
): void {
  provider.use(async (ctx, next) => {
    const batch: Batch = {
      upserts: new Map(),
      consumes: new Map(),
      destroys: new Map(),
      guard: undefined,
      stale: false,
    };
    let outcome: Outcome;
    try {
      await scope.run(batch, next);
      const upserts = [...batch.upserts.values()];
      outcome = batch.stale ? 'stale' : await send(db, batch);
      if (outcome === 'stored') onStored(upserts);
    } catch (error) {
      if (batch.stale || error instanceof StaleTrust) outcome = 'stale';
      else if (error instanceof ConsumedMeanwhile) outcome = 'consumed';
      else {
        ctx.app.emit('server_error', ctx, error);
        answer(ctx, 500, { error: 'server_error', error_description: 'oops! something went wrong' });
        return;
      }
    }
    if (outcome === 'consumed') {
      answer(ctx, 400, { error: 'invalid_grant', error_description: 'grant request is invalid' });
    }
    if (outcome !== 'stale') return;
    const reads = requestReads();
    if (!reads) {
      answer(ctx, 500, { error: 'server_error', error_description: 'oops! something went wrong' });
      return;
    }
    reads.retryUncached = true;
    ctx.respond = false;
  });
}

function answer(ctx: Parameters<Parameters<Provider['use']>[0]>[0], status: number, body: object) {
  ctx.remove('location');
  ctx.set('cache-control', 'no-store');
  ctx.status = status;
  ctx.body = body;
}

/**
 * One statement: the consumes (only of rows not consumed yet) and, if every one of them took, the
 * upserts. A guard, if the request has one, gates all of it. 'consumed' when a consume found its
 * row already used: then the grant behind it is revoked.
 */
async function send(db: Db, batch: Batch): Promise<Outcome> {
  const consumes = [...batch.consumes.values()];
  const upserts = [...batch.upserts.values()];
  const destroys = [...batch.destroys.values()];
  const guard = batch.guard;
  batch.consumes.clear();
  batch.upserts.clear();
  batch.destroys.clear();
  batch.guard = undefined;
  const keys = (rows: Array<{ type: string; id: string }>) =>
    sql.join(rows.map((r) => sql`(${r.type}, ${r.id})`));
  const consumeKeys = keys(consumes);
  const steps = [];
  if (guard) steps.push(sql`fresh as (select (${guard}) as ok)`);
  const ifFresh = guard ? sql`and (select ok from fresh)` : sql``;
  if (consumes.length) {
    steps.push(sql`consumed as (
      update oidc_payloads set consumed_at = now()
      where (type, id) in (${consumeKeys}) and consumed_at is null ${ifFresh}
      returning 1)`);
  }
  if (destroys.length) {
    steps.push(sql`gone as (delete from oidc_payloads where (type, id) in (${keys(destroys)}) ${ifFresh})`);
  }
  if (upserts.length) {
    const values = sql.join(
      upserts.map(
        (r) =>
          sql`(${r.id}, ${r.type}, ${r.payload}::jsonb, ${r.grant_id}, ${r.user_code}, ${r.uid}, ${r.expires_at}::timestamptz)`,
      ),
    );
    // Stored only if every consume took: a token used meanwhile gets nothing new.
    const onlyIf = consumes.length
      ? sql`where (select count(*) from consumed) = ${consumes.length}`
      : guard
        ? sql`where (select ok from fresh)`
        : sql``;
    steps.push(sql`written as (
      insert into oidc_payloads (id, type, payload, grant_id, user_code, uid, expires_at)
      select * from (values ${values}) as v (id, type, payload, grant_id, user_code, uid, expires_at)
      ${onlyIf}
      on conflict (type, id) do update set payload = excluded.payload, grant_id = excluded.grant_id,
        user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at)`);
  }
  if (!steps.length) return 'stored';
  const { rows } = await sql<{ consumed: number; fresh: boolean }>`
    with ${sql.join(steps)}
    select ${consumes.length ? sql`(select count(*) from consumed)::int` : sql`0`} as consumed,
      ${guard ? sql`(select ok from fresh)` : sql`true`} as fresh`.execute(db);
  // Nothing was written: the request runs again from what the database holds.
  if (!rows[0]!.fresh) return 'stale';
  if (rows[0]!.consumed === consumes.length) return 'stored';
  // Used twice at once: as the provider does on a replay, the whole grant goes.
  await sql`
    delete from oidc_payloads
    where grant_id in (select grant_id from oidc_payloads where (type, id) in (${consumeKeys}))
      or (type = 'Grant' and id in (
        select encode(sha256(convert_to(grant_id, 'UTF8')), 'hex') from oidc_payloads
        where (type, id) in (${consumeKeys}) and grant_id is not null))`.execute(db);
  return 'consumed';
}
