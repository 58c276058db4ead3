import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';
import type { Config } from '../config.ts';
import { isApiOrProviderPath } from '../lib/server-paths.ts';

/** Security headers with a CSP that allows no inline script, and per-address request limits. */
export async function registerSecurity(app: FastifyInstance, config: Config): Promise<void> {
  // Built once: @fastify/helmet builds (and parses the CSP of) a new middleware on every request,
  // about 25 µs of each (issue 18).
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
        ...(config.secureCookies ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    hsts: config.secureCookies ? { maxAge: 31_536_000, includeSubDomains: false } : false,
    crossOriginEmbedderPolicy: false,
  });
  app.addHook('onRequest', (request, reply, done) =>
    securityHeaders(request.raw, reply.raw, (error) => done(error as Error | undefined)),
  );
  // API answers are the signed-in user's data: no browser or shared cache keeps them (the back
  // button after sign-out, a proxy between offices). A route may set its own policy first.
  app.addHook('onSend', async (request, reply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    if ((pathname === '/api' || pathname.startsWith('/api/')) && !reply.hasHeader('cache-control')) {
      void reply.header('cache-control', 'no-store');
    }
  });
  // A generous ceiling for the API and the provider; public endpoints set tighter limits on their
  // routes. The console's static files are not counted: one page load fetches a dozen of them, and
  // counting them would lock out a busy office behind one address for reading cached JavaScript.
  await app.register(rateLimit, {
    global: true,
    max: 600,
    timeWindow: '1 minute',
    // Judged by the matched route's declared path, never the raw URL, which an encoded
    // character (`/%61pi/…`) could make look like something else.
    // Other routes (device discovery under /.well-known, /mail, /autodiscover) count when they
    // declare a limit of their own.
    allowList: (request) =>
      !isApiOrProviderPath(request.routeOptions.url ?? request.url) && !request.routeOptions.config.rateLimit,
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      code: 'rate_limited',
      message: `Too many requests. Try again in ${Math.ceil(context.ttl / 1000)} seconds.`,
    }),
  });
}
