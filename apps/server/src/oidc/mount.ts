import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';

/**
 * Hands every /oidc request to the provider (a Koa app) untouched: the body stream is left
 * unread for the provider's own parser, and the security headers Fastify's hooks prepared
 * (CSP, rate-limit counters…) are copied onto the raw response first.
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
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    const forward = async (request: FastifyRequest, reply: FastifyReply) => {
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
      raw.url = raw.url!.slice('/oidc'.length) || '/';
      await callback(raw, reply.raw);
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
