import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/lib/crypto.ts';
import { deleteExpiredDownloadLinks } from '../../src/modules/takeout/takeout-links.repository.ts';
import { removeExpiredArchives } from '../../src/modules/takeout/takeout.job.ts';
import { failOrphanedTakeouts } from '../../src/modules/takeout/takeout.repository.ts';
import { createGroup, installBody } from '../apps/helpers.ts';
import {
  createOrganizationWithAdmin,
  createUser,
  signInAs,
  type TestOrganization,
  type TestSession,
} from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, as } from '../users/helpers.ts';
import { downloadAndExtract, downloadLink, finishTakeout } from './helpers.ts';

// Takeout without mail (docs/takeout.md): the archive holds every row of the organisation's
// directory, settings and activity, no secret, and nothing of another organisation.

let t: TestApp;
interface World {
  org: TestOrganization;
  admin: TestSession;
  domain: string;
  clientSecret: string;
}
let a: World;
let b: World;

/** An organisation with users, groups, an app, a domain, an alias, a group address and a catch-all. */
async function fill(name: string): Promise<World> {
  const org = await createOrganizationWithAdmin(t.db);
  const admin = await signInAs(t.db, org.admin);
  const api = as(t, admin);
  const domain = `${name}-${org.siteName}.example.com`;
  await addDomain(t.db, org.id, domain);
  const users = [];
  for (let i = 0; i < 5; i++) {
    users.push(
      await createUser(t.db, org.id, { email: `${name}${i}@${domain}`, firstName: `${name}-first-${i}` }),
    );
  }
  const group = await createGroup(t.db, org.id, `${name} team`, [users[0]!.id, users[1]!.id]);
  const installed = await api.post(
    '/api/apps',
    installBody({ title: `${name} wiki`, openToEveryone: false, groupIds: [group] }),
  );
  expect(installed.status, JSON.stringify(installed.body)).toBe(201);
  const alias = await api.post('/api/mail/aliases', {
    userId: users[2]!.id,
    localPart: `${name}-sales`,
    domain,
  });
  expect(alias.status, JSON.stringify(alias.body)).toBe(201);
  expect(
    (await api.put(`/api/mail/group-addresses/${group}`, { localPart: `${name}-team`, domain })).status,
  ).toBe(200);
  const domainId = (
    await t.db.selectFrom('domains').select('id').where('name', '=', domain).executeTakeFirstOrThrow()
  ).id;
  expect((await api.put(`/api/mail/catch-alls/${domainId}`, { type: 'user', id: users[3]!.id })).status).toBe(
    200,
  );
  return { org, admin, domain, clientSecret: (installed.body as { clientSecret: string }).clientSecret };
}

beforeAll(async () => {
  t = await createTestApp();
  // Jobs run when a test drains the queue, so a test sees an export before it runs.
  await t.app.jobs.stop();
  a = await fill('alpha');
  b = await fill('bravo');
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id).sort();

describe('takeout', () => {
  it('exports every user, group, app, domain, address and activity entry of the organisation, no secret, nothing of another', async () => {
    const api = as(t, a.admin);
    const started = await api.post('/api/takeout');
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body).toMatchObject({ status: 'queued', downloadable: false, startedBy: 'Ada Admin' });
    // One at a time per organisation; another organisation may start its own.
    const again = await api.post('/api/takeout');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_running');

    const row = await finishTakeout(t, started.body.id);
    expect(row.status, row.error ?? '').toBe('done');
    const listed = (await api.get('/api/takeout')).body.takeouts[0];
    expect(listed).toMatchObject({
      id: started.body.id,
      status: 'done',
      phase: 'finished',
      expired: false,
      downloadable: true,
    });
    const days = (Date.parse(listed.expiresAt) - Date.parse(listed.finishedAt)) / 86_400_000;
    expect(Math.round(days)).toBe(7);
    expect(listed.sizeBytes).toBeGreaterThan(0);

    const archive = await downloadAndExtract(t, a.admin, started.body.id);
    expect(archive.root).toMatch(new RegExp(`^atrium-takeout-${a.org.siteName}-\\d{4}-\\d{2}-\\d{2}$`));
    const orgId = a.org.id;
    const db = t.db;
    const dbUsers = await db
      .selectFrom('users')
      .select(['id', 'email'])
      .where('organization_id', '=', orgId)
      .execute();
    const users = archive.json<Array<{ id: string; email: string; groups: string[] }>>('users.json');
    expect(ids(users)).toEqual(ids(dbUsers));
    expect(users.find((u) => u.email === `alpha0@${a.domain}`)!.groups).toEqual(['alpha team']);
    const csvLines = archive.text('users.csv').trim().split('\r\n');
    expect(csvLines).toHaveLength(dbUsers.length + 1);
    // A byte-order mark first, so spreadsheets read names with accents as UTF-8.
    expect(archive.files.get('users.csv')!.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(csvLines[0]!.replace('\uFEFF', '')).toBe(
      '"id","email","firstName","lastName","status","groups","createdAt","lastSignInAt"',
    );

    const dbGroups = await db
      .selectFrom('groups')
      .select('id')
      .where('organization_id', '=', orgId)
      .execute();
    expect(ids(archive.json('groups.json') as Array<{ id: string }>)).toEqual(ids(dbGroups));
    const members = await db
      .selectFrom('group_members')
      .select(['group_id', 'user_id'])
      .where('organization_id', '=', orgId)
      .execute();
    expect(archive.json('group-members.json')).toHaveLength(members.length);

    const dbApps = await db
      .selectFrom('apps')
      .select(['id', 'client_id'])
      .where('organization_id', '=', orgId)
      .execute();
    const apps = archive.json<Array<{ id: string; clientId: string; groups: string[] }>>('apps.json');
    expect(ids(apps)).toEqual(ids(dbApps));
    expect(apps[0]).toMatchObject({ clientId: dbApps[0]!.client_id, groups: ['alpha team'] });

    const dbDomains = await db
      .selectFrom('domains')
      .select('id')
      .where('organization_id', '=', orgId)
      .execute();
    expect(ids(archive.json('domains.json') as Array<{ id: string }>)).toEqual(ids(dbDomains));

    const dbAddresses = await db
      .selectFrom('mail_addresses')
      .select(['id', 'kind'])
      .where('organization_id', '=', orgId)
      .execute();
    const addresses =
      archive.json<Array<{ id: string; kind: string; address: string }>>('mail-addresses.json');
    expect(ids(addresses)).toEqual(ids(dbAddresses));
    expect(new Set(addresses.map((x) => x.kind))).toEqual(
      new Set(['primary', 'alias', 'group', 'catch_all']),
    );
    expect(addresses.map((x) => x.address)).toContain(`alpha-sales@${a.domain}`);

    // Every entry logged before the export finished, its own start included (the download is after).
    const dbActivity = await db
      .selectFrom('activity_log')
      .select(['id', 'action'])
      .where('organization_id', '=', orgId)
      .where('action', 'not in', ['takeout.finished', 'takeout.downloaded'])
      .execute();
    const activity = archive.json<Array<{ id: string; action: string }>>('activity.json');
    expect(ids(activity)).toEqual(ids(dbActivity));
    expect(activity.map((x) => x.action)).toEqual(
      expect.arrayContaining(['app.installed', 'takeout.started']),
    );
    expect(archive.text('activity.csv').trim().split('\r\n')).toHaveLength(dbActivity.length + 1);

    expect(archive.text('README.txt')).toContain('Mail is not set up on this server');
    expect(archive.json('organization.json')).toMatchObject({ id: orgId, siteName: a.org.siteName });

    // No secret and nothing of the other organisation, anywhere in the archive.
    const everything = [...archive.files.values()].map((f) => f.toString('utf8')).join('\n');
    const bUsers = await db
      .selectFrom('users')
      .select(['id', 'email'])
      .where('organization_id', '=', b.org.id)
      .execute();
    const bGroups = await db
      .selectFrom('groups')
      .select('id')
      .where('organization_id', '=', b.org.id)
      .execute();
    const bApps = await db
      .selectFrom('apps')
      .select(['id', 'client_id'])
      .where('organization_id', '=', b.org.id)
      .execute();
    const bActivity = await db
      .selectFrom('activity_log')
      .select('id')
      .where('organization_id', '=', b.org.id)
      .execute();
    const foreign = [
      b.org.id,
      b.domain,
      'bravo',
      ...bUsers.flatMap((u) => [u.id, u.email]),
      ...bGroups.map((g) => g.id),
      ...bApps.flatMap((x) => [x.id, x.client_id]),
      ...bActivity.map((x) => x.id),
    ];
    for (const value of foreign) expect(everything, value).not.toContain(value);
    for (const secret of [a.clientSecret, b.clientSecret, 'sealed', 'token'.padEnd(32, 'x')]) {
      expect(everything).not.toContain(secret);
    }
    const hashes = await db
      .selectFrom('users')
      .select('password_hash')
      .where('password_hash', 'is not', null)
      .execute();
    for (const { password_hash } of hashes) expect(everything).not.toContain(password_hash);

    const actions = JSON.stringify((await api.get('/api/activity?kind=takeout')).body);
    expect(actions).toContain('takeout.finished');
    expect(actions).toContain('takeout.downloaded');
  });

  it('is for the organisation’s admins only: members are refused, another organisation finds nothing', async () => {
    const started = await as(t, a.admin).post('/api/takeout');
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    await finishTakeout(t, started.body.id);
    const member = await signInAs(t.db, await createUser(t.db, a.org.id));
    const asMember = as(t, member);
    expect((await asMember.post('/api/takeout')).status).toBe(403);
    expect((await asMember.get('/api/takeout')).status).toBe(403);
    expect((await asMember.get(`/api/takeout/${started.body.id}/download`)).status).toBe(403);
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/takeout/${started.body.id}/download` })).statusCode,
    ).toBe(401);

    const other = as(t, b.admin);
    expect((await other.get(`/api/takeout/${started.body.id}/download`)).status).toBe(404);
    const theirs = (await other.get('/api/takeout')).body.takeouts as Array<{ id: string }>;
    expect(theirs.map((x) => x.id)).not.toContain(started.body.id);
  });

  it('downloads only with a link the same admin session made a moment before, once', async () => {
    const started = await as(t, a.admin).post('/api/takeout');
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    await finishTakeout(t, started.body.id);
    const id = started.body.id as string;
    const plain = `/api/takeout/${id}/download`;

    // The archive's own URL, without a link: refused even with the admin's session.
    const bare = await as(t, a.admin).get(plain);
    expect(bare.status).toBe(403);
    expect(bare.body.error.code).toBe('download_link_invalid');
    expect(bare.body.error.message).toMatch(/Download the archive again/);

    const made = await as(t, a.admin).post(`/api/takeout/${id}/download-link`);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const link = made.body.url as string;
    expect(link).toMatch(new RegExp(`^/api/takeout/${id}/download\\?link=[\\w-]{40,}$`));
    const lifetime = Date.parse(made.body.expiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(0);
    expect(lifetime).toBeLessThanOrEqual(60_000);
    expect(made.response.headers['cache-control']).toBe('no-store');
    // Nothing of the token is stored, only its hash.
    const stored = await t.db.selectFrom('takeout_download_links').select('token_hash').execute();
    expect(JSON.stringify(stored)).not.toContain(new URL(link, 'http://x').searchParams.get('link'));

    // The link alone (no session), another session of the same admin, another admin of the same
    // organisation, and an admin of another organisation all get nothing.
    expect((await t.app.inject({ method: 'GET', url: link })).statusCode).toBe(401);
    expect((await as(t, await signInAs(t.db, a.org.admin)).get(link)).status).toBe(403);
    const colleague = await createUser(t.db, a.org.id);
    await t.db
      .insertInto('group_members')
      .values({ organization_id: a.org.id, group_id: a.org.dashboardGroupId, user_id: colleague.id })
      .execute();
    expect((await as(t, await signInAs(t.db, colleague)).get(link)).status).toBe(403);
    expect((await as(t, b.admin).get(link)).status).toBe(404);
    expect((await as(t, b.admin).post(`/api/takeout/${id}/download-link`)).status).toBe(404);

    // With the session that made it: the archive, once.
    const ok = await as(t, a.admin).get(link);
    expect(ok.status).toBe(200);
    expect(ok.response.headers['content-type']).toBe('application/gzip');
    expect(ok.response.rawPayload.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const again = await as(t, a.admin).get(link);
    expect(again.status).toBe(403);
    expect(again.body.error.code).toBe('download_link_invalid');

    // A link past its minute is refused, and housekeeping forgets it.
    const late = await downloadLink(t, a.admin, id);
    await t.db
      .updateTable('takeout_download_links')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .execute();
    expect((await as(t, a.admin).get(late)).status).toBe(403);
    await deleteExpiredDownloadLinks(t.db);
    expect(await t.db.selectFrom('takeout_download_links').select('id').execute()).toEqual([]);

    // Signing out ends the session's links.
    const unused = await downloadLink(t, a.admin, id);
    const token = a.admin.cookie.slice(a.admin.cookie.indexOf('=') + 1);
    await t.db.deleteFrom('console_sessions').where('id', '=', sha256(token)).execute();
    expect((await t.app.inject({ method: 'GET', url: unused })).statusCode).toBe(401);
    expect(await t.db.selectFrom('takeout_download_links').select('id').execute()).toEqual([]);
    a.admin = await signInAs(t.db, a.org.admin);
  });

  it('answers 410 once the link expired', async () => {
    const api = as(t, a.admin);
    const started = await api.post('/api/takeout');
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    await finishTakeout(t, started.body.id);
    expect((await api.get(await downloadLink(t, a.admin, started.body.id))).status).toBe(200);
    const unused = await downloadLink(t, a.admin, started.body.id);
    await t.db
      .updateTable('takeouts')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', started.body.id)
      .execute();
    const gone = await api.get(unused);
    expect(gone.status).toBe(410);
    expect(gone.body.error.code).toBe('expired');
    expect((await api.post(`/api/takeout/${started.body.id}/download-link`)).status).toBe(410);
    const listed = ((await api.get('/api/takeout')).body.takeouts as Array<{ id: string }>).find(
      (x) => x.id === started.body.id,
    );
    expect(listed).toMatchObject({ expired: true, downloadable: false });

    // Housekeeping removes the expired file; the row stays, and the link still answers 410.
    const { file_path } = await t.db
      .selectFrom('takeouts')
      .select('file_path')
      .where('id', '=', started.body.id)
      .executeTakeFirstOrThrow();
    expect(existsSync(path.join(t.config.dataDir, file_path!))).toBe(true);
    expect(await removeExpiredArchives({ db: t.db, config: t.config })).toBe(1);
    expect(existsSync(path.join(t.config.dataDir, file_path!))).toBe(false);
    expect((await api.get(`/api/takeout/${started.body.id}/download`)).status).toBe(410);
  });

  it('fails an export whose worker died on its last attempt (housekeeping), and another can start', async () => {
    const api = as(t, b.admin);
    const started = await api.post('/api/takeout');
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const { job_id } = await t.db
      .selectFrom('takeouts')
      .select('job_id')
      .where('id', '=', started.body.id)
      .executeTakeFirstOrThrow();
    // What the queue's own housekeeping leaves of a job whose worker died on the last attempt.
    await t.db.updateTable('jobs').set({ status: 'failed' }).where('id', '=', job_id!).execute();
    await failOrphanedTakeouts(t.db);
    const listed = ((await api.get('/api/takeout')).body.takeouts as Array<{ id: string }>)[0];
    expect(listed).toMatchObject({ id: started.body.id, status: 'failed', downloadable: false });
    expect((await api.post('/api/takeout')).status).toBe(202);
  });
});
