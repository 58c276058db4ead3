import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { testEnv } from '../support/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

// Issue 42: /robots.txt answered the console's HTML (the single-page fallback).
const html = '<!doctype html><head><title>Atrium</title></head><div id="root"></div>';

let database: TestDatabase;
let consoleDir: string;
let built: Awaited<ReturnType<typeof buildApp>>;
let unbuilt: Awaited<ReturnType<typeof buildApp>>;

beforeAll(async () => {
  database = await createTestDatabase();
  consoleDir = mkdtempSync(path.join(tmpdir(), 'atrium-console-'));
  writeFileSync(path.join(consoleDir, 'index.html'), html);
  built = await buildApp({ ...loadConfig(testEnv()), consoleDir }, { db: database.db });
  unbuilt = await buildApp(
    { ...loadConfig(testEnv()), consoleDir: path.join(consoleDir, 'missing') },
    { db: database.db },
  );
  await Promise.all([built.ready(), unbuilt.ready()]);
});

afterAll(async () => {
  await built?.close();
  await unbuilt?.close();
  await database?.drop();
  rmSync(consoleDir, { recursive: true, force: true });
});

describe('/robots.txt', () => {
  it('tells every crawler to stay out, as plain text, not the console page', async () => {
    const response = await built.inject({ method: 'GET', url: '/robots.txt' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toBe('User-agent: *\nDisallow: /\n');
  });

  it('answers HEAD the same way, without a body', async () => {
    const response = await built.inject({ method: 'HEAD', url: '/robots.txt' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toBe('');
  });

  it('is there when the console is not built too', async () => {
    const response = await unbuilt.inject({ method: 'GET', url: '/robots.txt' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toBe('User-agent: *\nDisallow: /\n');
  });

  it('leaves the single-page fallback to the console’s own routes', async () => {
    const response = await built.inject({ method: 'GET', url: '/dashboard' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toBe(html);
  });
});
