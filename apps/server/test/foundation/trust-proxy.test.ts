import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// /api/sso/start allows 30 requests a minute per address.
const LIMIT = 30;

describe('TRUST_PROXY behind one proxy', () => {
  let server: TestApp;

  beforeAll(async () => {
    server = await createTestApp({ env: { TRUST_PROXY: '1' } });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('takes the address the proxy saw, not one the client put in X-Forwarded-For', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) {
      const response = await server.app.inject({
        url: '/api/sso/start',
        // The client's own header first, then the address the proxy appended.
        headers: { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.7` },
      });
      statuses.push(response.statusCode);
    }
    expect(statuses.slice(0, LIMIT).every((s) => s === 302)).toBe(true);
    expect(statuses[LIMIT]).toBe(429);
  });
});
