import { describe, expect, it } from 'vitest';
import { createOrganizationWithAdmin } from '../support/fixtures.ts';
import { TestDavHost } from '../support/dav-host.ts';
import { createTestApp } from '../support/test-app.ts';
import { useStarted } from '../support/use-started.ts';

// Issue 38: the monitors' OPERATOR_TOKEN reads the status and nothing else, and from outside the
// host (through Caddy, as install writes its Caddyfile) no operator endpoint but the status answers.

const TOKEN = 'operator-token-that-is-long-enough-0123456789';
const BACKUP = 'backup-token-that-is-long-enough-0123456789';
const MAIL_HOST = 'localhost';
const STATUS = 'GET /api/operator/status';

/** Caddy, with install's Caddyfile, in front of a listening Atrium that has both tokens. */
async function createWorld() {
  const caddy = await TestDavHost.prepare();
  const server = await createTestApp({
    listen: true,
    env: {
      MAIL_HOST,
      OPERATOR_TOKEN: TOKEN,
      BACKUP_TOKEN: BACKUP,
      DAV_RADICALE_ADDRESS: caddy.radicaleAddress,
      // As install sets it: one proxy in front.
      TRUST_PROXY: '1',
    },
  });
  await caddy.start({ mailHost: MAIL_HOST, atriumPort: Number(server.config.port) });
  const org = await createOrganizationWithAdmin(server.db, { siteName: 'acme' });
  return {
    caddy,
    server,
    org,
    async close() {
      await caddy.close();
      await server.close();
    },
  };
}

describe('operator endpoints', () => {
  const world = useStarted(createWorld);

  /** Every operation under /api/operator/ the app publishes, as `METHOD /path`. */
  async function operatorOperations(): Promise<string[]> {
    const doc = (await world.server.app.inject('/api/openapi.json')).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    return Object.entries(doc.paths)
      .filter(([p]) => p.startsWith('/api/operator/'))
      .flatMap(([p, operations]) =>
        Object.keys(operations)
          .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
          .map((m) => `${m.toUpperCase()} ${p}`),
      );
  }

  it('give the status token 401 or 403 on every operator route but the status', async () => {
    const operations = await operatorOperations();
    // Not an empty list that passes by itself: the dump is one of them.
    expect(operations).toContain('GET /api/operator/database-dump');
    expect(operations).toContain(STATUS);
    let n = 0;
    for (const operation of operations.filter((o) => o !== STATUS)) {
      const [method, template] = operation.split(' ') as [string, string];
      const url = template.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      const answer = await world.server.app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: `Bearer ${TOKEN}` },
        // A loopback address of its own each: this is the token's test, not the rate limit's.
        remoteAddress: `127.0.2.${++n}`,
        ...(method === 'GET' || method === 'DELETE' ? {} : { payload: {} }),
      });
      expect([401, 403], `${operation}: ${answer.statusCode} ${answer.body.slice(0, 200)}`).toContain(
        answer.statusCode,
      );
    }
    const status = await world.server.app.inject({
      url: '/api/operator/status',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect([200, 503]).toContain(status.statusCode);
  });

  it('are refused through Caddy, whatever the token and spelling of the path; the status passes', async () => {
    const paths = [
      '/api/operator/database-dump',
      '/API/Operator/Database-Dump',
      '/api/operator/database-dump/',
      '/api/operator/database-dump?format=ndjson',
      '/api/operator/%64atabase-dump',
      '/api/%6fperator/database-dump',
      '/api/operator/status/../database-dump',
      '/api/operator/status/%2e%2e/database-dump',
      '/api/./operator/database-dump',
      '//api/operator/database-dump',
      '/api//operator/database-dump',
    ];
    // Both site blocks: the console's name (PUBLIC_URL's host, 127.0.0.1 here) and every other one.
    for (const host of ['127.0.0.1', MAIL_HOST, 'acme.atrium.test']) {
      for (const token of [TOKEN, BACKUP]) {
        for (const p of paths) {
          const answer = await world.caddy.fetch(host, {
            path: p,
            headers: { authorization: `Bearer ${token}` },
          });
          expect(answer.status, `${host} ${p}: ${answer.status} ${answer.body.slice(0, 200)}`).not.toBe(200);
          expect(answer.body).not.toContain('organizations');
        }
        // Caddy itself answers the plain path, before Atrium (an empty 404, no JSON error of Atrium's).
        const plain = await world.caddy.fetch(host, {
          path: '/api/operator/database-dump',
          headers: { authorization: `Bearer ${token}` },
        });
        expect(plain.status, world.caddy.logs()).toBe(404);
        expect(plain.body).toBe('');
      }
      // The monitors' status still reaches Atrium through Caddy.
      const status = await world.caddy.fetch(host, {
        path: '/api/operator/status',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect([200, 503], `${host}: ${status.status} ${status.body.slice(0, 200)}`).toContain(status.status);
      expect(status.body).toContain('"checks"');
    }
  });

  it('give the dump to BACKUP_TOKEN straight over loopback, as the backup asks', async () => {
    const answer = await fetch(`http://127.0.0.1:${world.server.config.port}/api/operator/database-dump`, {
      headers: { authorization: `Bearer ${BACKUP}` },
    });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('"organizations"');
  });
});
