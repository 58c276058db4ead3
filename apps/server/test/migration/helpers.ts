import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { TestSession } from '../support/fixtures.ts';
import type { TestApp } from '../support/test-app.ts';

export const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, 'fixtures', name));

/** Sends a CSV file as the raw body, as the console does. */
export async function upload(
  test: TestApp,
  session: TestSession,
  url: string,
  csv: string | Buffer,
  contentType = 'text/csv',
) {
  const response = await test.app.inject({
    method: 'POST',
    url,
    headers: { ...session.headers, 'content-type': contentType },
    payload: csv,
  });
  return { status: response.statusCode, body: JSON.parse(response.body), response };
}

export const dryRun = (test: TestApp, session: TestSession, csv: string | Buffer) =>
  upload(test, session, '/api/migration/user-imports/dry-run', csv);

export const startImport = (
  test: TestApp,
  session: TestSession,
  csv: string | Buffer,
  fileName = 'users.csv',
) => upload(test, session, `/api/migration/user-imports?fileName=${encodeURIComponent(fileName)}`, csv);

/** The users of an organisation with their groups, as a comparable snapshot. */
export async function usersOf(test: TestApp, organizationId: string) {
  const users = await test.db
    .selectFrom('users')
    .leftJoin('group_members as gm', 'gm.user_id', 'users.id')
    .leftJoin('groups as g', 'g.id', 'gm.group_id')
    .select([
      'users.email',
      'users.first_name',
      'users.last_name',
      'users.status',
      'users.password_hash',
      'g.name as group',
    ])
    .where('users.organization_id', '=', organizationId)
    .orderBy('users.email')
    .orderBy('g.name')
    .execute();
  const byEmail = new Map<string, { name: string; status: string; hasPassword: boolean; groups: string[] }>();
  for (const u of users) {
    const entry = byEmail.get(u.email) ?? {
      name: `${u.first_name} ${u.last_name}`,
      status: u.status,
      hasPassword: u.password_hash !== null,
      groups: [],
    };
    if (u.group) entry.groups.push(u.group);
    byEmail.set(u.email, entry);
  }
  return Object.fromEntries(byEmail);
}

/**
 * Runs the job queue until `done` holds. `drain` alone can return while the worker's own loop
 * (woken by the upload) still holds the job: on PostgreSQL the two claims really race.
 */
export async function runJobsUntil(test: TestApp, done: () => Promise<boolean>): Promise<void> {
  for (;;) {
    await test.app.jobs.drain();
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs the queue until the import has finished (done, failed or cancelled). */
export async function finishImport(test: TestApp, importId: string): Promise<void> {
  await runJobsUntil(test, async () => {
    const row = await test.db
      .selectFrom('user_imports')
      .select('status')
      .where('id', '=', importId)
      .executeTakeFirstOrThrow();
    return !['queued', 'running'].includes(row.status);
  });
}
