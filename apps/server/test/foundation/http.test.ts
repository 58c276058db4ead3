import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { principalOf } from '../../src/plugins/auth-guard.ts';
import { createOrganizationWithAdmin, createUser, signInAs, type TestSession } from '../support/fixtures.ts';
import { testEnv } from '../support/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

// Routes that exist only here, to exercise the guard, validation and the error handler.
const probeRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/api/probe/echo',
    {
      config: { access: 'public' },
      schema: { operationId: 'probeEcho', body: z.object({ name: z.string().min(2) }) },
    },
    async (request) => ({ name: request.body.name }),
  );
  app.get(
    '/api/probe/boom',
    { config: { access: 'public' }, schema: { operationId: 'probeBoom' } },
    async () => {
      throw new Error('secret internal detail');
    },
  );
  app.get(
    '/api/probe/me',
    { config: { access: 'user' }, schema: { operationId: 'probeMe' } },
    async (request) => ({
      userId: principalOf(request).userId,
    }),
  );
  app.post(
    '/api/probe/admin',
    { config: { access: 'admin' }, schema: { operationId: 'probeAdmin' } },
    async () => ({
      ok: true,
    }),
  );
};

let database: TestDatabase;
let app: Awaited<ReturnType<typeof buildApp>>;
let adminSession: TestSession;
let userSession: TestSession;

beforeAll(async () => {
  database = await createTestDatabase();
  const consoleDir = mkdtempSync(path.join(tmpdir(), 'atrium-console-'));
  mkdirSync(path.join(consoleDir, 'assets'));
  writeFileSync(
    path.join(consoleDir, 'index.html'),
    '<!doctype html><title>Atrium</title><div id="root"></div>',
  );
  writeFileSync(path.join(consoleDir, 'assets', 'app-abc123.js'), 'console.log(1)');
  const config = { ...loadConfig(testEnv()), consoleDir };
  app = await buildApp(config, { db: database.db });
  await app.register(probeRoutes);
  await app.ready();
  const org = await createOrganizationWithAdmin(database.db);
  adminSession = await signInAs(database.db, org.admin);
  userSession = await signInAs(database.db, await createUser(database.db, org.id));
});

afterAll(async () => {
  await app.close();
  await database.drop();
});

describe('health and readiness', () => {
  it('answers liveness and readiness with the database reachable', async () => {
    expect((await app.inject('/api/health')).json()).toEqual({ status: 'ok' });
    const ready = await app.inject('/api/ready');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });
});

describe('routing', () => {
  it('gives unknown API paths a JSON 404, never the console', async () => {
    const res = await app.inject('/api/no-such-thing');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.json()).toEqual({ error: { code: 'not_found', message: 'No route GET /api/no-such-thing' } });
  });

  it('serves the console with SPA fallback for client routes', async () => {
    for (const url of ['/', '/dashboard', '/users', '/some/unknown/page']) {
      const res = await app.inject(url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.body).toContain('<div id="root">');
      expect(res.headers['cache-control']).toBe('no-cache');
    }
    const asset = await app.inject('/assets/app-abc123.js');
    expect(asset.headers['cache-control']).toContain('immutable');
  });

  it('sends security headers with a CSP that allows no inline script', async () => {
    const res = await app.inject('/dashboard');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('publishes OpenAPI 3.1 with an operationId on every operation', async () => {
    const doc = (await app.inject('/api/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.values(
      doc.paths as Record<string, Record<string, { operationId?: string }>>,
    ).flatMap((p) => Object.values(p));
    expect(operations.length).toBeGreaterThan(0);
    for (const op of operations) expect(op.operationId).toEqual(expect.any(String));
    const docs = await app.inject('/api/docs/');
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('swagger');
  });
});

describe('errors', () => {
  it('names the field that failed validation', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/probe/echo', payload: { name: 'x' } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error.code).toBe('validation_failed');
    expect(Object.keys(body.error.fields)).toEqual(['name']);
    expect(body.error.message).toMatch(/^name: /);
  });

  it('answers malformed JSON with a 400 that says so', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/probe/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/JSON/i);
  });

  it('hides unexpected errors behind "Something went wrong" and a request id', async () => {
    const res = await app.inject('/api/probe/boom');
    expect(res.statusCode).toBe(500);
    const body = res.json();
    expect(body.error.message).toBe('Something went wrong');
    expect(body.error.requestId).toBe(res.headers['x-request-id']);
    expect(res.body).not.toContain('secret internal detail');
  });
});

describe('access guard', () => {
  it('refuses a signed-out caller', async () => {
    const res = await app.inject('/api/probe/me');
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('unauthenticated');
  });

  it('knows the signed-in caller', async () => {
    const res = await app.inject({ url: '/api/probe/me', headers: { cookie: userSession.cookie } });
    expect(res.statusCode).toBe(200);
  });

  it('refuses a state-changing request without the CSRF token', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/probe/admin',
      headers: { cookie: adminSession.cookie },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('csrf_failed');
    const wrong = await app.inject({
      method: 'POST',
      url: '/api/probe/admin',
      headers: { cookie: adminSession.cookie, 'x-csrf-token': userSession.csrfToken },
    });
    expect(wrong.statusCode).toBe(403);
  });

  it('lets only Dashboard members call admin routes', async () => {
    const asAdmin = await app.inject({
      method: 'POST',
      url: '/api/probe/admin',
      headers: adminSession.headers,
    });
    expect(asAdmin.statusCode).toBe(200);
    const asUser = await app.inject({
      method: 'POST',
      url: '/api/probe/admin',
      headers: userSession.headers,
    });
    expect(asUser.statusCode).toBe(403);
    expect(asUser.json().error.code).toBe('forbidden');
  });

  it('refuses a made-up session cookie', async () => {
    const res = await app.inject({ url: '/api/probe/me', headers: { cookie: 'atrium_session=forged' } });
    expect(res.statusCode).toBe(401);
  });
});

describe('per-address request limits', () => {
  it("counts API requests against the address's limit, but never the console's files", async () => {
    const from = { remoteAddress: '203.0.113.77' };
    for (let i = 0; i < 650; i++) {
      const asset = await app.inject({ url: '/assets/app-abc123.js', ...from });
      expect(asset.statusCode).toBe(200);
    }
    let answered = 0;
    for (let i = 0; i < 600; i++) {
      if ((await app.inject({ url: '/api/health', ...from })).statusCode === 200) answered++;
    }
    expect(answered).toBe(600);
    const limited = await app.inject({ url: '/api/health', ...from });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('rate_limited');
    // An encoded path reaches the same route and the same limit.
    expect((await app.inject({ url: '/%61pi/health', ...from })).statusCode).not.toBe(200);
    // The console still loads for that address, and other addresses are not affected.
    expect((await app.inject({ url: '/assets/app-abc123.js', ...from })).statusCode).toBe(200);
    expect((await app.inject({ url: '/api/health', remoteAddress: '203.0.113.78' })).statusCode).toBe(200);
  });
});
