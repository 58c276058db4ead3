import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { loadSigningKeys, rotateSigningKeys } from '../../src/oidc/keys.ts';
import { createTestApp, testEnv } from '../support/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

describe('signing keys', () => {
  let database: TestDatabase;
  const config = loadConfig(testEnv());

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('generates one key on first start even when processes start together, and stores it encrypted', async () => {
    const [a, b] = await Promise.all([
      loadSigningKeys(database.db, config),
      loadSigningKeys(database.db, config),
    ]);
    expect(a.map((k) => k.kid)).toEqual(b.map((k) => k.kid));
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    const rows = await database.db.selectFrom('oidc_keys').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.jwk_enc).toMatch(/^v1\./);
    expect(rows[0]!.jwk_enc).not.toContain(a[0]!.d as string);
  });

  it('rotates: the new key signs, the old one stays published', async () => {
    const [before] = await loadSigningKeys(database.db, config);
    const kid = await rotateSigningKeys(database.db, config);
    const after = await loadSigningKeys(database.db, config);
    expect(after.map((k) => k.kid)).toEqual([kid, before!.kid]);

    const server = await createTestApp({ database });
    try {
      const jwks = (await server.app.inject({ method: 'GET', url: '/oidc/jwks' })).json() as {
        keys: Array<{ kid: string }>;
      };
      expect(jwks.keys.map((k) => k.kid)).toEqual([kid, before!.kid]);
    } finally {
      await server.close();
    }
  });
});
