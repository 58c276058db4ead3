import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { databaseDigests, dumpDigests, loadDump, parseDump } from '../../src/db/logical-dump.ts';
import { createOrganizationWithAdmin } from '../support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { insertVerifiedDomainWithKey } from './verified-domain.ts';

const TOKEN = 'operator-token-that-is-long-enough-0123456789';
const BACKUP = 'backup-token-that-is-long-enough-0123456789';
const SECRET = 'test-secret-that-is-long-enough-0123456789';

let t: TestApp;
let scratch: TestDatabase;

beforeAll(async () => {
  t = await createTestApp({ env: { OPERATOR_TOKEN: TOKEN, BACKUP_TOKEN: BACKUP, ATRIUM_SECRET: SECRET } });
  const org = await createOrganizationWithAdmin(t.db, { siteName: 'acme' });
  await insertVerifiedDomainWithKey(t.db, org.id, 'acme.example', SECRET);
  scratch = await createTestDatabase();
});

afterAll(async () => {
  await scratch.drop();
  await t.close();
});

/** Each request from an address of its own: the route allows 6 a minute per address. */
let sent = 0;
const dumpRequest = (authorization?: string, o: { headers?: Record<string, string>; from?: string } = {}) =>
  t.app.inject({
    url: '/api/operator/database-dump',
    headers: { ...(authorization ? { authorization } : {}), ...o.headers },
    remoteAddress: o.from ?? `127.0.1.${++sent}`,
  });

describe('GET /api/operator/database-dump', () => {
  it("answers 401 without BACKUP_TOKEN, also to the monitors' OPERATOR_TOKEN", async () => {
    for (const header of [
      undefined,
      'Bearer wrong',
      `Bearer ${TOKEN}`,
      `Basic ${BACKUP}`,
      `Bearer ${BACKUP}x`,
    ]) {
      const response = await dumpRequest(header);
      expect(response.statusCode, String(header)).toBe(401);
      expect(response.body).not.toContain('acme');
    }
  });

  it('answers 403 to the right token from another address or passed on by a proxy', async () => {
    for (const from of ['192.0.2.7', '10.0.0.1', '::ffff:192.0.2.7', '2001:db8::1']) {
      const response = await dumpRequest(`Bearer ${BACKUP}`, { from });
      expect(response.statusCode, from).toBe(403);
      expect(response.body).not.toContain('acme');
    }
    // Caddy connects from loopback too: what it adds to every request gives it away.
    for (const headers of [
      { 'x-forwarded-for': '127.0.0.1' } as Record<string, string>,
      { 'x-forwarded-host': 'acme.example' },
      { 'x-forwarded-proto': 'https' },
      { forwarded: 'for=127.0.0.1' },
      { via: '1.1 caddy' },
      { 'x-real-ip': '127.0.0.1' },
    ]) {
      const response = await dumpRequest(`Bearer ${BACKUP}`, { headers });
      expect(response.statusCode, JSON.stringify(headers)).toBe(403);
      expect(response.body).not.toContain('acme');
    }
    for (const from of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
      expect((await dumpRequest(`Bearer ${BACKUP}`, { from })).statusCode, from).toBe(200);
    }
  });

  it('refuses a BACKUP_TOKEN that is the OPERATOR_TOKEN, at start-up', () => {
    expect(() => loadConfig({ ATRIUM_SECRET: SECRET, OPERATOR_TOKEN: TOKEN, BACKUP_TOKEN: TOKEN })).toThrow(
      ConfigError,
    );
  });

  it('gives every table, which a fresh database loads back row for row', async () => {
    const response = await dumpRequest(`Bearer ${BACKUP}`);
    expect(response.statusCode, response.body).toBe(200);
    const dump = parseDump(response.body);
    const dumped = dumpDigests(dump);
    expect(dumped.organizations!.rows).toBe(1);
    expect(dumped.domains!.rows).toBe(1);
    expect(dumped).toEqual(await databaseDigests(t.db));

    await loadDump(scratch.db, dump);
    expect(await databaseDigests(scratch.db)).toEqual(dumped);
    // Sequences go on where they were: a new row does not take a number already used.
    expect(dump.sequences.length).toBeGreaterThan(0);
  });
});
