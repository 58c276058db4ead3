// The second floor of the identity bench (issue 18): oidc-provider with the simplest adapter on
// the same kind of database Atrium runs on (one table, the payload as jsonb, no Atrium code), so
// the cost of the database and the cost of Atrium can be told apart.
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import pg from 'pg';

type Query = (text: string, params?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;

export interface BareDatabase {
  kind: 'PGlite' | 'PostgreSQL';
  adapter: new (name: string) => Adapter;
  close(): Promise<void>;
}

const SCHEMA = `
  create table oidc_bare (
    kind text not null,
    id text not null,
    payload jsonb not null,
    grant_id text,
    user_code text,
    uid text,
    expires_at timestamptz,
    consumed_at timestamptz,
    primary key (kind, id)
  );
  create index oidc_bare_grant on oidc_bare (grant_id);
  create index oidc_bare_uid on oidc_bare (uid);
  create index oidc_bare_user_code on oidc_bare (user_code);`;

/** A fresh database of its own: in-memory PGlite, or one on the server of TEST_DATABASE_URL. */
export async function openBareDatabase(): Promise<BareDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const lite = await PGlite.create('memory://');
    await lite.exec(SCHEMA);
    const query: Query = (text, params) => lite.query(text, params);
    return { kind: 'PGlite', adapter: adapterOn(query), close: () => lite.close() };
  }
  const name = `atrium_bench_bare_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.href, max: 10 });
  // Dropping the database WITH (FORCE) ends connections the pool is still closing; that is expected.
  pool.on('error', () => undefined);
  await pool.query(SCHEMA);
  return {
    kind: 'PostgreSQL',
    adapter: adapterOn((text, params) => pool.query(text, params)),
    async close() {
      await pool.end();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

function adapterOn(query: Query): new (name: string) => Adapter {
  return class BareSqlAdapter implements Adapter {
    private readonly kind: string;
    constructor(kind: string) {
      this.kind = kind;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      await query(
        `insert into oidc_bare (kind, id, payload, grant_id, user_code, uid, expires_at)
         values ($1, $2, $3, $4, $5, $6, $7)
         on conflict (kind, id) do update set payload = excluded.payload, grant_id = excluded.grant_id,
           user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`,
        [
          this.kind,
          id,
          JSON.stringify(payload),
          payload.grantId ?? null,
          payload.userCode ?? null,
          payload.uid ?? null,
          expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
        ],
      );
    }

    private async one(where: string, value: string): Promise<AdapterPayload | undefined> {
      const { rows } = await query(
        `select payload, consumed_at from oidc_bare
         where kind = $1 and ${where} = $2 and (expires_at is null or expires_at > now())`,
        [this.kind, value],
      );
      const row = rows[0];
      if (!row) return undefined;
      const payload = row.payload as AdapterPayload;
      return row.consumed_at ? { ...payload, consumed: true } : payload;
    }

    find(id: string) {
      return this.one('id', id);
    }

    findByUid(uid: string) {
      return this.one('uid', uid);
    }

    findByUserCode(userCode: string) {
      return this.one('user_code', userCode);
    }

    async consume(id: string): Promise<void> {
      await query('update oidc_bare set consumed_at = now() where kind = $1 and id = $2', [this.kind, id]);
    }

    async destroy(id: string): Promise<void> {
      await query('delete from oidc_bare where kind = $1 and id = $2', [this.kind, id]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await query('delete from oidc_bare where grant_id = $1', [grantId]);
    }
  };
}
