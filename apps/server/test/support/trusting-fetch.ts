import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';

/**
 * A fetch for clients that take one (tsdav's `fetch` option) which trusts the test's own
 * certificate and nothing else: Node's global fetch reads extra CAs only at start-up
 * (NODE_EXTRA_CA_CERTS), and changing its global dispatcher would reach every other request of the
 * worker. Redirects are the caller's, as with `redirect: 'manual'`. `close()` drops its connections.
 */
export function trustingFetch(caCertificate: string): { fetch: typeof fetch; close(): void } {
  const agent = new Agent({ ca: readFileSync(caCertificate), keepAlive: true });
  const trusted: typeof fetch = (input, init = {}) =>
    new Promise((resolve, reject) => {
      const url = input instanceof Request ? input.url : String(input);
      const req = request(
        url,
        { agent, method: init.method ?? 'GET', headers: Object.fromEntries(new Headers(init.headers)) },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const headers = new Headers();
            for (const [name, value] of Object.entries(res.headers))
              for (const one of [value ?? []].flat()) headers.append(name, one);
            // A 204 or 304 carries no body, and Response refuses one.
            const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
            resolve(new Response(body, { status, statusText: res.statusMessage, headers }));
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (init.body !== undefined && init.body !== null && typeof init.body !== 'string')
        throw new Error('trustingFetch sends string bodies only');
      req.end(init.body ?? undefined);
    });
  return { fetch: trusted, close: () => agent.destroy() };
}
