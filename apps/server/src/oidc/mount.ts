import { parse as parseForm } from 'node:querystring';
import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { findUnstorableText } from '@atrium/contracts/text';
import { errorPage } from './pages.ts';
import { newRequestReads, withReadAhead } from './request-prefetch.ts';

/** The provider's own limit on a form body (oidc-provider's selective_body.js). */
const FORM_LIMIT = 56 * 1024;

/**
 * Hands every /oidc request to the provider (a Koa app), after one check of ours, and copies
 * the security headers Fastify's hooks prepared (CSP, rate-limit counters…) onto the raw
 * response first.
 */
export async function mountProvider(app: FastifyInstance, provider: Provider, publicUrl: URL): Promise<void> {
  // PUBLIC_URL is authoritative for every URL the provider writes (discovery, redirects, cookie
  // Secure flag), whatever Host or scheme reached this process behind a proxy.
  provider.proxy = true;
  // The provider answers its own 500s (its error page or JSON); they are logged with their error
  // and request id like the API's (plugins/error-handler.ts), through the request's own logger.
  const loggers = new WeakMap<IncomingMessage, FastifyBaseLogger>();
  provider.on('server_error', (ctx: { req: IncomingMessage }, error: unknown) => {
    (loggers.get(ctx.req) ?? app.log).error({ err: error }, 'unexpected error');
  });
  const callback = provider.callback();
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Form bodies are read here so the guard below can check them; the provider then reads the
    // same bytes again (see `replaying`). Any other body is left unread for its own parser.
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'buffer', bodyLimit: FORM_LIMIT },
      (_request, body, done) => done(null, body),
    );
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    const forward = async (request: FastifyRequest, reply: FastifyReply) => {
      const form = Buffer.isBuffer(request.body) ? request.body : undefined;
      const fields = form && parseForm(form.toString());
      const refused = refusedParameter(request.query) ?? (fields && refusedParameter(fields));
      if (refused) return refuse(request, reply, refused);
      reply.hijack();
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) reply.raw.setHeader(name, value as string | string[]);
      }
      // Hijacked replies skip the onSend hook that sets it on every other answer.
      reply.raw.setHeader('x-request-id', request.id);
      loggers.set(request.raw, request.log);
      const raw = request.raw as typeof request.raw & { originalUrl?: string };
      raw.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
      raw.headers['x-forwarded-host'] = publicUrl.host;
      raw.headers['x-forwarded-for'] = request.ip;
      raw.originalUrl = raw.url;
      // The provider's own path: `/oidc?x` is its `/?x` (not `?x`, a URL it cannot read: a 500).
      const own = raw.url!.slice('/oidc'.length);
      raw.url = own.startsWith('/') ? own : `/${own}`;
      const handle = () => callback(form ? replaying(raw, form) : raw, reply.raw);
      // A refresh grant may start from the copy of its token this process issued (issued-tokens.ts).
      const refreshGrant = raw.url === '/token' && fields?.grant_type === 'refresh_token';
      const reads = newRequestReads(refreshGrant);
      const headers = refreshGrant ? reply.raw.getHeaders() : undefined;
      await withReadAhead(handle, reads);
      if (reads.retryUncached && headers) {
        // The copy was stale: that run wrote and answered nothing; this one reads the database.
        for (const name of reply.raw.getHeaderNames()) reply.raw.removeHeader(name);
        for (const [name, value] of Object.entries(headers)) {
          if (value !== undefined) reply.raw.setHeader(name, value);
        }
        await withReadAhead(handle, newRequestReads(false));
      }
    };
    // Per-address ceilings well above a browser's: an app's back end calls the token endpoint
    // (code exchanges, refreshes) for all its users from one address, and authenticates to do so.
    const browserFacing = { config: { rateLimit: { max: 1200, timeWindow: '1 minute' } } };
    const backChannel = { config: { rateLimit: { max: 12_000, timeWindow: '1 minute' } } };
    for (const path of ['/oidc/token', '/oidc/token/introspection', '/oidc/token/revocation']) {
      scope.post(path, backChannel, forward);
    }
    scope.all('/oidc', browserFacing, forward);
    scope.all('/oidc/*', browserFacing, forward);
  });
}

/**
 * The request as the provider expects it, its body still unread: the bytes Fastify already read
 * are streamed again. (Handing them over as `req.body` works too, but the provider then warns
 * about an upstream body parser.)
 */
function replaying(raw: IncomingMessage, body: Buffer): IncomingMessage {
  let unread = true;
  return new Proxy(raw, {
    get(target, property, receiver) {
      if (property === 'readable') return unread;
      if (property === 'iterator') {
        return () =>
          (async function* () {
            unread = false;
            yield body;
          })();
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * The first query or form parameter holding a NUL or a lone surrogate: the provider would look
 * it up in PostgreSQL (a client id, a grant…), which refuses such text, and answer 500.
 */
function refusedParameter(params: unknown): string | undefined {
  const path = findUnstorableText(params);
  return path === undefined ? undefined : path.split('.')[0] || 'request';
}

/** A 400 as the provider itself answers invalid_request: its error page for a browser, else JSON. */
function refuse(request: FastifyRequest, reply: FastifyReply, parameter: string) {
  const out = {
    error: 'invalid_request',
    error_description: `${parameter} contains a character that is not allowed`,
  };
  void reply.status(400).header('cache-control', 'no-store');
  if (prefersHtml(request.headers.accept)) return reply.type('text/html; charset=utf-8').send(errorPage(out));
  return reply.send(out);
}

/** Koa's `ctx.accepts('json', 'html') === 'html'`, as the provider decides: HTML only when asked for. */
function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const html = accept.indexOf('text/html');
  const json = accept.indexOf('application/json');
  return html !== -1 && (json === -1 || html < json);
}
