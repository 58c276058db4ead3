import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../src/app.ts';
import { loadConfig, type Config, type Env } from '../../src/config.ts';
import { freePort } from './free-port.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  database: TestDatabase;
  db: TestDatabase['db'];
  close(): Promise<void>;
}

/** Settings every test starts from; a test passes its own env on top. */
export function testEnv(env: Env = {}): Env {
  return {
    ATRIUM_SECRET: 'test-secret-that-is-long-enough-0123456789',
    LOG_LEVEL: 'silent',
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'atrium-test-')),
    ...env,
  };
}

/**
 * The real app on a fresh database; `listen` when a test needs real HTTP (OIDC clients).
 * `publicHost` names it in PUBLIC_URL (passkeys need a domain name such as `localhost`: WebAuthn
 * refuses an IP address as relying party id).
 */
export async function createTestApp(
  options: {
    env?: Env;
    deps?: Partial<AppDeps>;
    listen?: boolean;
    database?: TestDatabase;
    publicHost?: string;
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  // A listening app must know its own URL when it is built (the OIDC issuer contains it).
  const port = options.listen ? await freePort() : 0;
  const env = options.listen
    ? {
        PUBLIC_URL: `http://${options.publicHost ?? '127.0.0.1'}:${port}`,
        PORT: String(port),
        ...options.env,
      }
    : options.env;
  const config = loadConfig(testEnv(env));
  const app = await buildApp(config, { db: database.db, ...options.deps });
  if (options.listen) {
    await app.listen({ port, host: '127.0.0.1' });
  } else {
    await app.ready();
  }
  return {
    app,
    config,
    database,
    db: database.db,
    async close() {
      await app.close();
      if (!options.database) await database.drop();
    },
  };
}
