import type { FastifyInstance } from 'fastify';

/**
 * A fetch for openid-client that answers requests to our own issuer inside this process
 * (app.inject), so the console's back channel never depends on PUBLIC_URL being reachable
 * from the server itself (TLS proxies, split DNS).
 */
export function inProcessFetch(app: FastifyInstance, origin: string) {
  return async (
    url: string,
    options: { method?: string; headers?: ConstructorParameters<typeof Headers>[0]; body?: unknown },
  ) => {
    const target = new URL(url);
    if (target.origin !== origin) throw new Error(`Refusing to fetch ${target.origin} in process`);
    const headers: Record<string, string> = {};
    new Headers(options.headers).forEach((value, name) => (headers[name] = value));
    const response = await app.inject({
      method: (options.method ?? 'GET') as 'GET',
      url: target.pathname + target.search,
      headers: { ...headers, host: new URL(origin).host },
      payload: options.body === undefined || options.body === null ? undefined : String(options.body),
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(name, String(v));
    }
    return new Response(response.statusCode === 204 ? null : new Uint8Array(response.rawPayload), {
      status: response.statusCode,
      headers: responseHeaders,
    });
  };
}
