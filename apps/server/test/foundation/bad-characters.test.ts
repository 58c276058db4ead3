import { UNSTORABLE_MESSAGE } from '@atrium/contracts/text';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { signInAs } from '../support/fixtures.ts';
import { useOrganizationWorld } from '../support/admin-world.ts';
import { registerErrorHandler } from '../../src/plugins/error-handler.ts';

/**
 * What a caller reads when a value holds characters the API refuses: a 400 naming the field (or
 * the body), never a 5xx. The fuzz test (fuzz.test.ts) sweeps every operation; these pin the answers.
 */

const MB = 1024 * 1024;

const server = useOrganizationWorld();
let addressCount = 0;

/** A new source address per request, so per-address limits never answer in place of the route. */
function nextAddress(): string {
  addressCount++;
  return `10.${(addressCount >> 16) & 255}.${(addressCount >> 8) & 255}.${addressCount & 255}`;
}

describe('the answers to bad characters', () => {
  const admin = async () => (await signInAs(server.db, server.org.admin)).headers;
  const fieldsOf = (res: { json(): { error: { fields?: Record<string, string> } } }) =>
    res.json().error.fields;

  it('refuses a NUL in a public sign-up form with a 400 naming the field', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/signup/site',
      payload: { organizationName: 'a\u0000b', siteName: 'fuzzing-site' },
      remoteAddress: nextAddress(),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: {
        code: 'validation_failed',
        message:
          'organizationName: Contains a character that is not allowed (a NUL or an invalid Unicode character)',
        fields: {
          organizationName:
            'Contains a character that is not allowed (a NUL or an invalid Unicode character)',
        },
      },
    });
  });

  it('refuses a NUL in the users search, and in the export before any 200', async () => {
    const headers = await admin();
    for (const url of ['/api/users?q=%00', '/api/users/export.csv?q=a%00b']) {
      const res = await server.app.inject({ url, headers });
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type']).toContain('application/json');
      expect(Object.keys(fieldsOf(res) ?? {})).toEqual(['q']);
    }
  });

  it('refuses a lone surrogate in a JSON body with a 400 naming the field', async () => {
    const res = await server.app.inject({
      method: 'PATCH',
      url: `/api/users/${server.org.admin.id}`,
      headers: { ...(await admin()), 'content-type': 'application/json' },
      payload: '{"firstName":"\\ud800","lastName":"Admin"}',
    });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(fieldsOf(res) ?? {})).toEqual(['firstName']);
  });

  it('refuses control, invisible and text-direction characters in names and titles, and takes any language', async () => {
    const headers = await admin();
    for (const name of [
      'Sales\u202Egpj.exe',
      'Sa\u200Bles',
      'Sales\u0007',
      'Sales\u2066x\u2069',
      'Tab\tbed',
    ]) {
      const res = await server.app.inject({ method: 'POST', url: '/api/groups', headers, payload: { name } });
      expect(res.statusCode, JSON.stringify(name)).toBe(400);
      expect(fieldsOf(res)).toEqual({ name: 'Remove the control, invisible or text-direction characters' });
    }
    const person = await server.app.inject({
      method: 'PATCH',
      url: `/api/users/${server.org.admin.id}`,
      headers,
      payload: { firstName: 'Ada\u202E', lastName: 'Admin' },
    });
    expect(fieldsOf(person)).toEqual({
      firstName: 'Remove the control, invisible or text-direction characters',
    });
    const fine = await server.app.inject({
      method: 'POST',
      url: '/api/groups',
      headers,
      payload: { name: 'Équipe 営業 فريق' },
    });
    expect(fine.statusCode).toBeLessThan(300);
  });

  it("answers the provider's endpoints with its own 400: the error page for a browser, JSON for a client", async () => {
    const page = await server.app.inject({
      url: '/oidc/auth?client_id=a%00b&response_type=code&scope=openid',
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(page.statusCode).toBe(400);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('client_id contains a character that is not allowed');
    expect(page.body).toContain('<code>invalid_request</code>');
    const token = await server.app.inject({
      method: 'POST',
      url: '/oidc/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=authorization_code&code=x&client_id=a%00b',
    });
    expect(token.statusCode).toBe(400);
    expect(token.json()).toEqual({
      error: 'invalid_request',
      error_description: 'client_id contains a character that is not allowed',
    });
  });

  it('answers a body it cannot read with a 4xx naming the body', async () => {
    const headers = await admin();
    const post = (payload: string, type: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/groups',
        headers: { ...headers, 'content-type': type },
        payload,
      });
    const cases: Array<[string, string, number, string]> = [
      ['{"name":', 'application/json', 400, 'invalid_json'],
      ['name=Sales', 'text/plain', 400, 'validation_failed'],
      ['<name>Sales</name>', 'application/xml', 415, 'unsupported_media_type'],
      [JSON.stringify({ name: 'a'.repeat(2 * MB) }), 'application/json', 413, 'body_too_large'],
    ];
    for (const [payload, type, status, code] of cases) {
      const res = await post(payload, type);
      expect(res.statusCode, code).toBe(status);
      expect(res.json().error.code).toBe(code);
      expect(Object.keys(fieldsOf(res) ?? {})).toEqual(['body']);
    }
  });
});

describe('the error handler’s safety net', () => {
  it('answers text the database cannot store (PostgreSQL 22021, 22P05) with a 400, never a 500', async () => {
    // A route that forgets to validate: the database refuses the text; the client gets a 400.
    const app = Fastify();
    registerErrorHandler(app);
    app.post('/text', async (request) => {
      await sql`select ${(request.body as { value: string }).value}::text`.execute(server.db);
      return { ok: true };
    });
    app.post('/json', async (request) => {
      await sql`select ${JSON.stringify(request.body)}::jsonb`.execute(server.db);
      return { ok: true };
    });
    try {
      const text = await app.inject({ method: 'POST', url: '/text', payload: { value: 'a\u0000b' } });
      expect(text.statusCode).toBe(400);
      expect(text.json()).toEqual({ error: { code: 'validation_failed', message: UNSTORABLE_MESSAGE } });
      const json = await app.inject({ method: 'POST', url: '/json', payload: { value: 'a\u0000b' } });
      expect(json.statusCode).toBe(400);
      expect(json.json().error.code).toBe('validation_failed');
    } finally {
      await app.close();
    }
  });
});
