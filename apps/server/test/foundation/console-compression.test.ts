import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { testEnv } from '../support/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

// A console build as `npm run build` leaves it: each text file with its .br and .gz beside it.
const script = `export const greeting = ${JSON.stringify('hello '.repeat(400))};\n`;
const html = `<!doctype html><head><title>Atrium</title></head><div id="root"></div>${'<!-- -->'.repeat(200)}`;
const loginHtml = html.replace('<title>', '<link rel="modulepreload" href="/assets/login-abc.js"><title>');
const ASSET = '/assets/index-abc123.js';

let database: TestDatabase;
let app: Awaited<ReturnType<typeof buildApp>>;

function writeWithCompressed(file: string, text: string) {
  writeFileSync(file, text);
  writeFileSync(`${file}.br`, brotliCompressSync(text));
  writeFileSync(`${file}.gz`, gzipSync(text));
}

beforeAll(async () => {
  database = await createTestDatabase();
  const consoleDir = mkdtempSync(path.join(tmpdir(), 'atrium-console-'));
  mkdirSync(path.join(consoleDir, 'assets'));
  writeWithCompressed(path.join(consoleDir, 'index.html'), html);
  writeWithCompressed(path.join(consoleDir, 'assets', 'index-abc123.js'), script);
  // The build's copy of index.html for /login, which also preloads the page's modules.
  mkdirSync(path.join(consoleDir, 'pages'));
  writeWithCompressed(path.join(consoleDir, 'pages', 'login.html'), loginHtml);
  writeFileSync(path.join(consoleDir, 'route-pages.json'), JSON.stringify({ '/login': 'pages/login.html' }));
  app = await buildApp({ ...loadConfig(testEnv()), consoleDir }, { db: database.db });
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await database.drop();
});

const get = (url: string, acceptEncoding?: string) =>
  app.inject({ method: 'GET', url, headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} });

describe('the console assets, pre-compressed', () => {
  it('sends Brotli to a browser that accepts it, the same bytes once decompressed, cached for a year', async () => {
    const res = await get(ASSET, 'gzip, deflate, br');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/^text\/javascript|^application\/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(res.rawPayload).toString()).toBe(script);
    expect(res.rawPayload.length).toBeLessThan(Buffer.byteLength(script) / 4);
  });

  it('sends gzip to a browser that accepts only gzip', async () => {
    const res = await get(ASSET, 'gzip');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(gunzipSync(res.rawPayload).toString()).toBe(script);
  });

  it('sends the plain file when no encoding is accepted', async () => {
    const res = await get(ASSET);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.body).toBe(script);
  });

  it('compresses the SPA fallback page too, which always revalidates', async () => {
    const res = await get('/dashboard', 'br');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(brotliDecompressSync(res.rawPayload).toString()).toBe(html);
  });

  it('still answers API paths with JSON, uncompressed by the static files', async () => {
    const res = await get('/api/nothing-here', 'br');
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
  });
});

describe('the first pages, with their own modules preloaded', () => {
  it('answers /login?uid=… with its own copy of index.html, compressed, and other pages with index.html', async () => {
    const login = await get('/login?uid=abc', 'br');
    expect(login.statusCode).toBe(200);
    expect(login.headers['content-encoding']).toBe('br');
    expect(login.headers['cache-control']).toBe('no-cache');
    // With the sign-in's first read preloaded, so it is asked for beside the page's code.
    expect(brotliDecompressSync(login.rawPayload).toString()).toBe(
      loginHtml.replace(
        '</head>',
        '  <link rel="preload" as="fetch" crossorigin="anonymous" href="/api/interactions/abc/state">\n  </head>',
      ),
    );
    const users = await get('/users?page=2');
    expect(users.body).toBe(html);
  });

  it("preloads nothing for an id that is not the provider's shape, and never echoes it", async () => {
    const login = await get('/login?uid=%22%3E%3Cscript%3E', 'gzip');
    expect(login.statusCode).toBe(200);
    const body = gunzipSync(login.rawPayload).toString();
    expect(body).toBe(loginHtml);
    expect(body).not.toContain('<script>');
  });

  it('starts a sign-in straight away for /login on its own', async () => {
    const res = await get('/login');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/api/sso/start');
  });
});
