import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { hashPassword } from '../../src/lib/passwords.ts';
import { releaseId } from '../../src/operator/install/release.ts';
import { readSettingsFile } from '../../src/operator/settings-file.ts';
import { createOrganizationWithAdmin, signInAs, type TestSession } from '../support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';
import { DeploymentClient } from './deployment-client.ts';
import { InstalledHost } from './installed-host.ts';
import { atrium, cannotStart, copyCheckout, harmless } from './release-checkouts.ts';
import { describeLoad, startLoad, type Load } from './update-load.ts';
import { insertVerifiedDomainWithKey } from './verified-domain.ts';

/**
 * `update` while people use the host (issue 41): an `install --root` host with mail, its Atrium
 * under its supervisor through the init script, and a load as people make it: readiness probes,
 * the identity provider's discovery document, a signed-in console read (10 a second each), the
 * operator's status, a mail client signing in over IMAP with an app password and one submitting
 * on 587, again and again. Then updates to a good release, to one that cannot start, and back,
 * and a restart. Nobody is ever told their password is wrong, and no message is refused for good;
 * on PostgreSQL nothing fails at all (the new release starts beside the serving one). The embedded
 * database has one user at a time: its gap is its opening, during which clients are told to try
 * again (refused connections, 503, IMAP's UNAVAILABLE, SMTP's 4xx).
 */
const repo = path.resolve(import.meta.dirname, '../../../..');
const PASSWORD = 'correct horse battery staple';
const domain = `u${randomBytes(4).toString('hex')}.example.com`;
const admin = `ada@${domain}`;
let host: InstalledHost;
let database: TestDatabase;
let deployment: DeploymentClient;
let session: TestSession;
let appPassword: string;
let operatorToken: string;

const servingRelease = () =>
  path.basename(
    (JSON.parse(readFileSync(host.at('run/atrium/supervisor.json'), 'utf8')) as { serving: string }).serving,
  );

beforeAll(async () => {
  database = await createTestDatabase();
  host = await InstalledHost.create();
  const installed = host.install(database.url ? ['--database-url', database.url] : []);
  if (installed.status !== 0) throw new Error(`install failed:\n${installed.output}`);
  const settings = readSettingsFile(host.layout.settingsFile)!;
  operatorToken = settings.OPERATOR_TOKEN!;
  // Filled before the server starts (it then holds the embedded database): a user whose domain
  // is verified, with its DKIM key, and a console session.
  const db = await connectDatabase(
    database.url ? { databaseUrl: database.url } : { pgliteDir: path.join(host.layout.dataDir, 'pgdata') },
  );
  await migrateToLatest(db);
  const org = await createOrganizationWithAdmin(db, {
    siteName: `update${randomBytes(3).toString('hex')}`,
    adminEmail: admin,
    passwordHash: await hashPassword(PASSWORD),
  });
  await insertVerifiedDomainWithKey(db, org.id, domain, settings.ATRIUM_SECRET!);
  session = await signInAs(db, org.admin);
  await db.destroy();
  if (!database.url) {
    // This process's lock on the embedded database goes only when it exits: the server takes it.
    rmSync(path.join(host.layout.dataDir, 'pgdata.lock'), { force: true });
    spawnSync('chown', ['-R', 'atrium:atrium', host.layout.dataDir]);
  }
  await host.startAtrium();
  host.syncDkim();
  await host.startMail();
  deployment = new DeploymentClient(host.publicUrl);
  const created = await deployment.api(session, 'POST', '/api/profile/app-passwords', { name: 'Phone' });
  expect(created.status, created.body).toBe(201);
  appPassword = String(created.json().password);
}, 300_000);

afterAll(async () => {
  await host?.close();
  await database?.drop();
});

function load(): Load {
  const url = (p: string) => `${host.publicUrl}${p}`;
  return startLoad({
    host,
    http: [
      { url: url('/api/ready'), answered: (r) => Promise.resolve(r.status === 200) },
      // The identity provider, which every sign-in of every app reads first.
      {
        url: url('/oidc/.well-known/openid-configuration'),
        answered: async (r) =>
          r.status === 200 && ((await r.json()) as { issuer?: string }).issuer === `${host.publicUrl}/oidc`,
      },
      // A signed-in console read, as the console makes them.
      {
        url: url('/api/session'),
        headers: session.headers,
        answered: async (r) =>
          r.status === 200 && ((await r.json()) as { user?: unknown }).user !== undefined,
      },
      // The host's report with OPERATOR_TOKEN (throttled: once a second); 503 with its checks when
      // one fails (no backup yet) is its answer, a refused token is not.
      {
        url: url('/api/operator/status'),
        headers: { authorization: `Bearer ${operatorToken}` },
        answered: async (r) =>
          (r.status === 200 || r.status === 503) &&
          Array.isArray(((await r.json()) as { checks?: unknown }).checks),
      },
    ],
    mail: { user: admin, pass: appPassword },
  });
}

/** Lets the load run a few seconds before and after `step`, as people would be there anyway. */
async function underLoad<T>(what: string, step: () => Promise<T>) {
  const traffic = load();
  await new Promise((r) => setTimeout(r, 2000));
  const result = await step();
  await new Promise((r) => setTimeout(r, 3000));
  const tally = await traffic.stop();
  console.log(describeLoad(what, tally));
  // Nobody is told their password is wrong, and no message is refused for good.
  expect(tally.imap.authFailures, host.logs()).toEqual([]);
  expect(tally.submission.authFailures).toEqual([]);
  expect([...tally.imap.permanent, ...tally.submission.permanent]).toEqual([]);
  expect(tally.imap.ok).toBeGreaterThan(0);
  // Tried throughout; on a loaded machine Postfix may hold submission back for a while (a "try
  // again" the line above prints with its reason), which is no wrong answer.
  expect(tally.submission.tries).toBeGreaterThan(0);
  expect(tally.http.sent).toBeGreaterThan(20);
  return { result, tally };
}

const expectNoGap = (tally: Awaited<ReturnType<Load['stop']>>) => {
  if (database.url) {
    // Dovecot's checks move to the new server with the web's requests (plugins/handover.ts); on a
    // loaded machine one may still meet the old server as it closes, and is told to try again.
    expect(tally.http.failed).toEqual([]);
  } else {
    // One process opens the embedded database: refused or closed connections (undici's
    // UND_ERR_SOCKET: a kept-alive one the old server closed) while it opens, no wrong answer.
    expect(
      tally.http.failed.filter((f) => !/ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET|HTTP 503/.test(f)),
    ).toEqual([]);
  }
};

describe(`update under load (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'embedded database'})`, () => {
  it('takes a new release into service while people keep working', async () => {
    const checkout = copyCheckout(host.layout.root, 'harmless', harmless);
    const { result: run, tally } = await underLoad('update', () =>
      atrium(host.layout.root, checkout, ['update', '--root', host.layout.root]),
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(servingRelease()).toBe(releaseId(checkout));
    expectNoGap(tally);
  }, 240_000);

  it('keeps the serving release when the new one cannot start, and nobody notices', async () => {
    const serving = servingRelease();
    const checkout = copyCheckout(host.layout.root, 'broken', (dir) => {
      harmless(dir);
      cannotStart(dir);
    });
    const { result: run, tally } = await underLoad('update to a release that cannot start', () =>
      atrium(host.layout.root, checkout, ['update', '--root', host.layout.root]),
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`release ${releaseId(checkout)} did not become ready`);
    expect(servingRelease()).toBe(serving);
    // It never loaded, so the serving one never stopped, on either database.
    expect(tally.http.failed).toEqual([]);
  }, 240_000);

  it('goes back with --rollback while people keep working', async () => {
    const { result: run, tally } = await underLoad('rollback', () =>
      atrium(host.layout.root, repo, ['update', '--root', host.layout.root, '--rollback']),
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(servingRelease()).toBe(releaseId(repo));
    expectNoGap(tally);
  }, 240_000);

  it('restarts through the init script with nobody told their password is wrong', async () => {
    await underLoad('/etc/init.d/atrium restart', async () => {
      const restarted = spawnSync(path.join(host.layout.initDir, 'atrium'), ['restart'], {
        encoding: 'utf8',
      });
      expect(restarted.status, restarted.stderr).toBe(0);
      await host.startAtrium();
    });
  }, 240_000);

  it('refuses a revoked app password at once over IMAP and submission', async () => {
    const listed = await deployment.api(session, 'GET', '/api/profile/app-passwords');
    const [phone] = listed.json().appPasswords as { id: string }[];
    const revoked = await deployment.api(session, 'DELETE', `/api/profile/app-passwords/${phone!.id}`);
    expect(revoked.status, revoked.body).toBeLessThan(300);
    // The very next sign-ins: nothing remembers the password it was.
    const tally = await startLoad({ host, http: [], mail: { user: admin, pass: appPassword } }).stop();
    expect(tally.imap.ok + tally.submission.ok).toBe(0);
    expect(tally.imap.authFailures.length).toBeGreaterThan(0);
    expect(tally.submission.authFailures.length).toBeGreaterThan(0);
  }, 60_000);
});
