import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { JWK } from 'oidc-provider';
import { ConfigError, type Config } from '../config.ts';
import type { Db, DbOrTrx } from '../db/database.ts';
import { decryptSecret, deriveKey, encryptSecret } from '../lib/crypto.ts';

const PURPOSE = 'oidc-keys';
/** Serialises key generation between processes that start at the same time. */
const LOCK_ID = 734_201_003;

function newSigningKey(): JWK {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as JWK;
  return { ...jwk, kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

async function insertKey(db: DbOrTrx, config: Config, jwk: JWK): Promise<void> {
  await db
    .insertInto('oidc_keys')
    .values({ kid: jwk.kid!, jwk_enc: encryptSecret(deriveKey(config.secret, PURPOSE), JSON.stringify(jwk)) })
    .execute();
}

/**
 * The provider's signing keys: the newest active key first (it signs), then retired keys
 * (still published so tokens they signed keep verifying). Generated on first start.
 */
export async function loadSigningKeys(db: Db, config: Config): Promise<JWK[]> {
  const rows = await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${LOCK_ID})`.execute(trx);
    const existing = await selectKeys(trx);
    if (existing.some((k) => k.retired_at === null)) return existing;
    await insertKey(trx, config, newSigningKey());
    return selectKeys(trx);
  });
  const key = deriveKey(config.secret, PURPOSE);
  try {
    return rows.map((row) => JSON.parse(decryptSecret(key, row.jwk_enc)) as JWK);
  } catch {
    throw new ConfigError(
      'ATRIUM_SECRET',
      'it cannot decrypt the stored OIDC signing keys: it differs from the secret they were stored with',
    );
  }
}

function selectKeys(db: DbOrTrx) {
  return (
    db
      .selectFrom('oidc_keys')
      .select(['kid', 'jwk_enc', 'retired_at'])
      // Keys retired more than a week ago signed nothing still alive (refresh tokens are opaque).
      .where((eb) =>
        eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', sql<Date>`now() - interval '7 days'`)]),
      )
      .orderBy(sql`retired_at is null`, 'desc')
      .orderBy('created_at', 'desc')
      .execute()
  );
}

/** A new signing key; the previous ones are retired. Running servers pick it up on restart. */
export async function rotateSigningKeys(db: Db, config: Config): Promise<string> {
  const jwk = newSigningKey();
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${LOCK_ID})`.execute(trx);
    await trx
      .updateTable('oidc_keys')
      .set({ retired_at: sql`now()` })
      .where('retired_at', 'is', null)
      .execute();
    await insertKey(trx, config, jwk);
  });
  return jwk.kid!;
}
