import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Autodiscover bodies an attacker would send (issue 38): each is the client's fault, so a 400 that
 * names the problem, and nothing in the log at error level (an operator's alert).
 */
describe('Autodiscover with hostile XML', () => {
  let server: TestApp;
  // The log goes to stdout; with a spy on it, the logger writes through the spy.
  const logged: string[] = [];
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    logged.push(String(chunk));
    return true;
  });
  const logLines = () =>
    logged
      .flatMap((chunk) => chunk.split('\n'))
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; reqId?: string; msg?: string });

  beforeAll(async () => {
    server = await createTestApp({ env: { LOG_LEVEL: 'info' } });
  });

  afterAll(async () => {
    stdout.mockRestore();
    await server?.close();
  });

  const envelope = (inner: string) =>
    '<Autodiscover xmlns="http://schemas.microsoft.com/exchange/autodiscover/outlook/requestschema/2006">' +
    `<Request><EMailAddress>ada@acme.example</EMailAddress>${inner}</Request></Autodiscover>`;

  const cases: Array<[string, string, RegExp]> = [
    [
      'an element named __proto__',
      envelope('<__proto__><polluted>yes</polluted></__proto__>'),
      /<__proto__>/,
    ],
    ['an element named constructor', envelope('<constructor><prototype/></constructor>'), /<constructor>/],
    ['an empty, prefixed constructor', envelope('<a:constructor xmlns:a="urn:x"/>'), /<constructor>/],
    ['__proto__ as the address', envelope('').replace('ada@acme.example', '<__proto__/>'), /<__proto__>/],
    ['2,000 nested tags', `${'<a>'.repeat(2000)}${'</a>'.repeat(2000)}`, /nests elements more than 16 deep/],
    ['malformed XML', '<Autodiscover><Request><EMailAddress>a</Request>', /not well-formed XML/],
    ['unclosed, inside the body', `${'<a>'.repeat(2000)}`, /not well-formed XML/],
  ];

  it.each(cases)(
    'answers %s with a 400 naming the problem, logged below error level',
    async (_name, xml, problem) => {
      for (const url of ['/autodiscover/autodiscover.xml', '/Autodiscover/Autodiscover.xml']) {
        const response = await server.app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': 'text/xml; charset=utf-8' },
          payload: xml,
        });
        expect(response.statusCode, response.body).toBe(400);
        expect(response.json().error).toMatchObject({
          code: 'bad_request',
          message: expect.stringMatching(problem),
        });
        const requestId = response.headers['x-request-id'];
        const lines = logLines().filter((line) => line.reqId === requestId);
        // The request was logged (the spy sees the log), and nothing about it at error level or above.
        expect(lines.length).toBeGreaterThan(0);
        expect(lines.filter((line) => line.level >= 50)).toEqual([]);
      }
    },
  );

  it('leaves Object.prototype as it was', () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
