import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/connect.ts';
import type { Db } from '../../src/db/database.ts';
import { newClientSecret, sealClientSecret } from '../../src/oidc/client-secrets.ts';
import { createOrganizationWithAdmin } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { registerTestClient } from './support/clients.ts';

// The provider keeps each client it reads in memory (issue 18); these check that a change to a
// client reaches that copy, whether this process made it or another one did.

/** How the token endpoint judges a client's credentials: 'ok' is a bad grant from a known client. */
async function authenticate(server: TestApp, clientId: string, secret: string) {
  const res = await server.app.inject({
    method: 'POST',
    url: '/oidc/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
    },
    payload: 'grant_type=refresh_token&refresh_token=not-a-real-token',
  });
  const error = (JSON.parse(res.body) as { error: string }).error;
  return error === 'invalid_grant' ? 'ok' : error;
}

describe("the provider's copy of each client", () => {
  let server: TestApp;
  let organizationId: string;
  /** Another process's view of the same database: a connection of its own (PostgreSQL), or the same PGlite. */
  let elsewhere: Db;

  beforeAll(async () => {
    server = await createTestApp();
    organizationId = (await createOrganizationWithAdmin(server.db)).id;
    elsewhere = server.database.url ? await connectDatabase({ databaseUrl: server.database.url }) : server.db;
  });

  afterAll(async () => {
    if (elsewhere !== server.db) await elsewhere.destroy();
    await server.close();
  });

  it('takes a new secret at once when this process writes it', async () => {
    const rp = await registerTestClient(server.db, server.config, {
      organizationId,
      redirectUri: 'https://a.test/cb',
    });
    expect(await authenticate(server, rp.clientId, rp.clientSecret)).toBe('ok');
    const next = newClientSecret();
    await server.db
      .updateTable('oidc_clients')
      .set({ client_secret_enc: sealClientSecret(server.config, next) })
      .where('client_id', '=', rp.clientId)
      .execute();
    expect(await authenticate(server, rp.clientId, rp.clientSecret)).toBe('invalid_client');
    expect(await authenticate(server, rp.clientId, next)).toBe('ok');
  });

  it('takes a new secret, and forgets a deleted client, when another process changes them', async () => {
    const rp = await registerTestClient(server.db, server.config, {
      organizationId,
      redirectUri: 'https://b.test/cb',
    });
    expect(await authenticate(server, rp.clientId, rp.clientSecret)).toBe('ok');
    const next = newClientSecret();
    await elsewhere
      .updateTable('oidc_clients')
      .set({ client_secret_enc: sealClientSecret(server.config, next) })
      .where('client_id', '=', rp.clientId)
      .execute();
    // Another process's change arrives through the listening connection, a moment after its commit.
    await expect.poll(() => authenticate(server, rp.clientId, rp.clientSecret)).toBe('invalid_client');
    expect(await authenticate(server, rp.clientId, next)).toBe('ok');

    await elsewhere.deleteFrom('oidc_clients').where('client_id', '=', rp.clientId).execute();
    await expect.poll(() => authenticate(server, rp.clientId, next)).toBe('invalid_client');
  });

  it('keeps nothing while it cannot hear changes, and catches up when it hears them again', async () => {
    if (!server.database.url) {
      // The embedded database has one process; its changes are heard in the same call.
      const rp = await registerTestClient(server.db, server.config, {
        organizationId,
        redirectUri: 'https://c.test/cb',
      });
      expect(await authenticate(server, rp.clientId, rp.clientSecret)).toBe('ok');
      await server.db.deleteFrom('oidc_clients').where('client_id', '=', rp.clientId).execute();
      expect(await authenticate(server, rp.clientId, rp.clientSecret)).toBe('invalid_client');
      return;
    }
    const rp = await registerTestClient(server.db, server.config, {
      organizationId,
      redirectUri: 'https://c.test/cb',
    });
    expect(await authenticate(server, rp.clientId, rp.clientSecret)).toBe('ok');
    // An administrator ends every session listening for changes (the server restarting would too).
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen%'`.execute(
      elsewhere,
    );
    const next = newClientSecret();
    await elsewhere
      .updateTable('oidc_clients')
      .set({ client_secret_enc: sealClientSecret(server.config, next) })
      .where('client_id', '=', rp.clientId)
      .execute();
    await expect.poll(() => authenticate(server, rp.clientId, rp.clientSecret)).toBe('invalid_client');
    expect(await authenticate(server, rp.clientId, next)).toBe('ok');
  });
});
