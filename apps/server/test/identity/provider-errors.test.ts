import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOrganizationWithAdmin, signInAs, type TestOrganization } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

describe('errors and caching', () => {
  let server: TestApp;
  let org: TestOrganization;
  // The log goes to stdout; with a spy on it, the logger writes through the spy (pino sees a
  // patched stream and uses it as is).
  const logged: string[] = [];
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    logged.push(String(chunk));
    return true;
  });

  beforeAll(async () => {
    server = await createTestApp({ env: { LOG_LEVEL: 'error' } });
    org = await createOrganizationWithAdmin(server.db);
  });

  afterAll(async () => {
    stdout.mockRestore();
    await server?.close();
  });

  it('logs a 500 of the provider with its error and request id, and answers with that id', async () => {
    // The provider cannot read its clients: every authorization request fails on the server.
    await sql`alter table oidc_clients rename to oidc_clients_away`.execute(server.db);
    try {
      const response = await server.app.inject({
        url: '/oidc/auth?client_id=any-client&response_type=code&scope=openid',
      });
      expect(response.statusCode).toBe(500);
      const requestId = response.headers['x-request-id'];
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      const entry = logged
        .flatMap((chunk) => chunk.split('\n'))
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { reqId?: string; msg?: string; err?: { message?: string } })
        .find((line) => line.reqId === requestId && line.msg === 'unexpected error');
      expect(entry?.err?.message).toMatch(/oidc_clients/);
    } finally {
      await sql`alter table oidc_clients_away rename to oidc_clients`.execute(server.db);
    }
  });

  it('keeps signed-in API answers out of every cache', async () => {
    const session = await signInAs(server.db, org.admin);
    for (const url of ['/api/session', '/api/users', `/api/users/${org.admin.id}`, '/api/dashboard']) {
      const response = await server.app.inject({ url, headers: { cookie: session.cookie } });
      expect(response.statusCode, url).toBeLessThan(300);
      expect(response.headers['cache-control'], url).toBe('no-store');
    }
  });
});
