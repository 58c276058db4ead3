import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { isApiOrProviderPath } from '../lib/server-paths.ts';

/** A self-hosted admin console (its sign-in, sign-up and every site host) is not for search engines. */
export const ROBOTS_TXT = 'User-agent: *\nDisallow: /\n';

/**
 * Serves the built console; any other GET that is not an API or provider path gets
 * index.html (SPA fallback). API paths always get a JSON 404, never HTML. /robots.txt is a real
 * one, built or not, instead of the fallback's HTML.
 */
export async function registerConsole(app: FastifyInstance, consoleDir: string): Promise<void> {
  app.get(
    '/robots.txt',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'getRobotsTxt',
        tags: ['console'],
        summary: 'Asks crawlers not to index anything',
      },
    },
    async (_request, reply) =>
      reply
        .header('cache-control', 'public, max-age=86400')
        .type('text/plain; charset=utf-8')
        .send(ROBOTS_TXT),
  );
  const indexFile = path.join(consoleDir, 'index.html');
  const built = existsSync(indexFile);
  const pageOf = routePagesOf(consoleDir);
  const loginFile = pageOf.get('/login');
  const loginPage = loginFile ? readFileSync(path.join(consoleDir, loginFile), 'utf8') : undefined;
  if (built) {
    await app.register(fastifyStatic, {
      root: consoleDir,
      wildcard: false,
      index: false,
      // The build writes .br and .gz next to each asset; sent when Accept-Encoding allows, with
      // Vary: Accept-Encoding. Applies to the SPA fallback's index.html too (sendFile).
      preCompressed: true,
      // @fastify/static 10 passes the reply here, not the raw response.
      setHeaders(reply: { header(name: string, value: string): unknown }, filePath: string) {
        // Hashed file names never change content; index.html always revalidates.
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
        reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    if (
      !isApiOrProviderPath(request.url) &&
      built &&
      (request.method === 'GET' || request.method === 'HEAD')
    ) {
      // /login on its own (typed in, bookmarked) starts a sign-in, as the page would once loaded.
      if (request.url === '/login') return reply.redirect('/api/sso/start', 302);
      const page = pageOf.get(request.url.split('?')[0]!) ?? 'index.html';
      const uid = request.url.startsWith('/login?') ? loginUid(request.url) : undefined;
      if (uid && loginPage) {
        const html = loginPage.replace('</head>', `  ${stateLink(uid)}\n  </head>`);
        const accepted = String(request.headers['accept-encoding'] ?? '');
        void reply.header('cache-control', 'no-cache').header('vary', 'Accept-Encoding');
        void reply.type('text/html; charset=utf-8');
        // A page of some 2 KB: compressed here at once, as the build compresses its files.
        if (/\bbr\b/.test(accepted))
          return reply.header('content-encoding', 'br').send(brotliCompressSync(html));
        if (/\bgzip\b/.test(accepted)) return reply.header('content-encoding', 'gzip').send(gzipSync(html));
        return reply.send(html);
      }
      return reply.header('cache-control', 'no-cache').sendFile(page, consoleDir);
    }
    return reply.status(404).send({
      error: { code: 'not_found', message: `No route ${request.method} ${request.url.split('?')[0]}` },
    });
  });
}

/**
 * The build's copies of index.html that also preload one page's modules (see the console's
 * vite-route-pages.ts), by path. A build without them serves index.html everywhere.
 */
function routePagesOf(consoleDir: string): Map<string, string> {
  const file = path.join(consoleDir, 'route-pages.json');
  if (!existsSync(file)) return new Map();
  const pages = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  return new Map(Object.entries(pages));
}

/** The sign-in's id in /login?uid=…, when it has the provider's shape (nothing else is echoed). */
function loginUid(url: string): string | undefined {
  const uid = new URLSearchParams(url.slice(url.indexOf('?') + 1)).get('uid');
  return uid && /^[\w-]{1,64}$/.test(uid) ? uid : undefined;
}

/**
 * /login's first read, the sign-in's state, fetched beside the page's code instead of after it
 * has run (the console's fetch takes the preloaded answer): a round trip less before the form.
 */
function stateLink(uid: string): string {
  return `<link rel="preload" as="fetch" crossorigin="anonymous" href="/api/interactions/${uid}/state">`;
}
