import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseDigests, dumpDigests, loadDump, parseDump } from '../../src/db/logical-dump.ts';
import { createOrganizationWithAdmin } from '../support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { insertVerifiedDomainWithKey } from './verified-domain.ts';

const TOKEN = 'operator-token-that-is-long-enough-0123456789';
const SECRET = 'test-secret-that-is-long-enough-0123456789';

let t: TestApp;
let scratch: TestDatabase;

beforeAll(async () => {
  t = await createTestApp({ env: { OPERATOR_TOKEN: TOKEN, ATRIUM_SECRET: SECRET } });
  const org = await createOrganizationWithAdmin(t.db, { siteName: 'acme' });
  await insertVerifiedDomainWithKey(t.db, org.id, 'acme.example', SECRET);
  scratch = await createTestDatabase();
});

afterAll(async () => {
  await scratch.drop();
  await t.close();
});

const dumpRequest = (authorization?: string) =>
  t.app.inject({ url: '/api/operator/database-dump', headers: authorization ? { authorization } : {} });

describe('GET /api/operator/database-dump', () => {
  it('answers 401 without the token', async () => {
    const response = await dumpRequest('Bearer wrong');
    expect(response.statusCode).toBe(401);
    expect(response.body).not.toContain('acme');
  });

  it('gives every table, which a fresh database loads back row for row', async () => {
    const response = await dumpRequest(`Bearer ${TOKEN}`);
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
