import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestSession } from '../support/fixtures.ts';
import type { TestApp } from '../support/test-app.ts';
import { runJobsUntil } from '../migration/helpers.ts';

/** Runs the queue until the export has finished (done or failed); returns its row. */
export async function finishTakeout(test: TestApp, id: string) {
  await runJobsUntil(test, async () => {
    const row = await test.db
      .selectFrom('takeouts')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return !['queued', 'running'].includes(row.status);
  });
  return test.db.selectFrom('takeouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export interface Extracted {
  /** The archive's one top directory. */
  root: string;
  /** Relative path → contents, every file. */
  files: Map<string, Buffer>;
  json<T = Record<string, unknown>[]>(name: string): T;
  text(name: string): string;
}

/** A one-time download link of an export, made by `session` as the console makes it on a click. */
export async function downloadLink(test: TestApp, session: TestSession, id: string): Promise<string> {
  const response = await test.app.inject({
    method: 'POST',
    url: `/api/takeout/${id}/download-link`,
    headers: session.headers,
  });
  if (response.statusCode !== 201) throw new Error(`download link: ${response.statusCode} ${response.body}`);
  return (response.json() as { url: string }).url;
}

/**
 * Downloads an export and unpacks it with the system's GNU tar, so the archive is read as a user
 * would read it (and the writer's format is checked by another implementation).
 */
export async function downloadAndExtract(
  test: TestApp,
  session: TestSession,
  id: string,
): Promise<Extracted> {
  const response = await test.app.inject({
    method: 'GET',
    url: await downloadLink(test, session, id),
    headers: session.headers,
  });
  if (response.statusCode !== 200) throw new Error(`download: ${response.statusCode} ${response.body}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'atrium-takeout-test-'));
  const archive = path.join(dir, 'archive.tar.gz');
  writeFileSync(archive, response.rawPayload);
  const out = path.join(dir, 'out');
  execFileSync('mkdir', [out]);
  execFileSync('tar', ['-xzf', archive, '-C', out]);
  const [top] = readdirSync(out);
  const root = path.join(out, top!);
  const files = new Map<string, Buffer>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = path.join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else files.set(path.relative(root, full), readFileSync(full));
    }
  };
  walk(root);
  const text = (name: string) => {
    const file = files.get(name);
    if (!file) throw new Error(`${name} is not in the archive: ${[...files.keys()].join(', ')}`);
    return file.toString('utf8');
  };
  return { root: top!, files, text, json: <T>(name: string) => JSON.parse(text(name)) as T };
}
