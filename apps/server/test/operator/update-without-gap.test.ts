import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseId } from '../../src/operator/install/release.ts';
import { freePort } from '../support/free-port.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';
import { ensureServiceUsers } from './installed-host.ts';
import { atrium, cannotStart, copyCheckout, harmless } from './release-checkouts.ts';

/**
 * `update` while clients use the host (issue 41): an `install --root` host (no mail) whose
 * Atrium runs under its supervisor through the init script, a load of 10 readiness probes, 10
 * reads of the identity provider's discovery document and one of the operator's status (with
 * OPERATOR_TOKEN) a second, and updates to
 * a good release, to one that cannot start, and back. On PostgreSQL not one request fails: the
 * new release starts beside the serving one and takes over. The embedded database has one user
 * at a time: its gap is one restart, during which connections are refused, never answered wrong.
 */
const repo = path.resolve(import.meta.dirname, '../../../..');
let root: string;
let port: number;
let database: TestDatabase;
let token: string;

interface Tally {
  sent: number;
  failed: string[];
  /** The longest run of failures, first to last, in ms. */
  outageMs: number;
}

/** Requests at 10/s per kind until `stop` is called; every answer but a 200 counts as failed. */
function load(): { stop: () => Promise<Tally> } {
  const tally: Tally = { sent: 0, failed: [], outageMs: 0 };
  let firstFailure: number | undefined;
  const requests: Promise<void>[] = [];
  /** `answered`: whether the response is the endpoint's own answer. */
  const one = async (url: string, answered: (r: Response) => Promise<boolean>, headers = {}) => {
    tally.sent++;
    const at = Date.now();
    const outcome = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) }).then(
      async (r) => ((await answered(r)) ? undefined : `HTTP ${r.status}`),
      (e: Error) => (e.cause as { code?: string } | undefined)?.code ?? e.message,
    );
    if (outcome) {
      tally.failed.push(`${new URL(url).pathname}: ${outcome}`);
      firstFailure ??= at;
      tally.outageMs = Math.max(tally.outageMs, Date.now() - firstFailure);
    } else {
      firstFailure = undefined;
    }
  };
  let tick = 0;
  const timer = setInterval(() => {
    requests.push(one(`http://127.0.0.1:${port}/api/ready`, (r) => Promise.resolve(r.status === 200)));
    // The identity provider, which every sign-in of every app reads first.
    requests.push(one(`http://127.0.0.1:${port}/oidc/.well-known/openid-configuration`, discovery));
    // The host's report with OPERATOR_TOKEN (throttled: once a second): 503 with its checks when
    // one fails (this host has no backup yet) is its answer; a refused token is not.
    if (tick++ % 10 === 0) {
      requests.push(
        one(`http://127.0.0.1:${port}/api/operator/status`, statusReport, {
          authorization: `Bearer ${token}`,
        }),
      );
    }
  }, 100);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(requests);
      return tally;
    },
  };
}

async function discovery(response: Response): Promise<boolean> {
  const body = (await response.json().catch(() => undefined)) as { issuer?: string } | undefined;
  return response.status === 200 && body?.issuer === 'https://atrium.test/oidc';
}

async function statusReport(response: Response): Promise<boolean> {
  const body = (await response.json().catch(() => undefined)) as { checks?: unknown[] } | undefined;
  return (response.status === 200 || response.status === 503) && Array.isArray(body?.checks);
}

const initScript = (action: string) =>
  spawnSync(path.join(root, 'etc/init.d/atrium'), [action], { encoding: 'utf8' });
const servingRelease = () =>
  path.basename(
    (JSON.parse(readFileSync(path.join(root, 'run/atrium/supervisor.json'), 'utf8')) as { serving: string })
      .serving,
  );

beforeAll(async () => {
  ensureServiceUsers();
  database = await createTestDatabase();
  root = mkdtempSync('/var/lib/atrium-update-gap-');
  chmodSync(root, 0o755);
  port = await freePort();
  const install = await atrium(root, repo, [
    ...['install', '--root', root, '--public-url', 'https://atrium.test', '--no-mail'],
    ...['--atrium-port', String(port)],
    ...(database.url ? ['--database-url', database.url] : []),
  ]);
  expect(install.stderr).toBe('');
  token = /^OPERATOR_TOKEN=(.+)$/m.exec(readFileSync(path.join(root, 'etc/atrium/atrium.env'), 'utf8'))![1]!;
  expect(initScript('start').status).toBe(0);
  for (let i = 0; i < 240; i++) {
    const ready = await fetch(`http://127.0.0.1:${port}/api/ready`).catch(() => undefined);
    if (ready?.status === 200) break;
    await new Promise((r) => setTimeout(r, 250));
  }
}, 240_000);

afterAll(async () => {
  if (root) {
    initScript('stop');
    rmSync(root, { recursive: true, force: true });
  }
  await database?.drop();
});

describe(`update under load (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'embedded database'})`, () => {
  const expectNoGap = (tally: Tally, what: string) => {
    console.log(
      `${what}: ${tally.sent} requests, ${tally.failed.length} failed, longest outage ${tally.outageMs} ms`,
    );
    expect(tally.sent).toBeGreaterThan(20);
    if (database.url) {
      expect(tally.failed).toEqual([]);
    } else {
      // One process opens the embedded database: refused connections while it restarts, no wrong answer.
      expect(tally.failed.filter((f) => !/ECONNREFUSED|ECONNRESET|HTTP 503/.test(f))).toEqual([]);
    }
  };

  it('takes a new release into service while requests keep coming', async () => {
    const checkout = copyCheckout(root, 'harmless', harmless);
    const traffic = load();
    const run = await atrium(root, checkout, ['update', '--root', root]);
    const tally = await traffic.stop();
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(servingRelease()).toBe(releaseId(checkout));
    expectNoGap(tally, 'update');
  }, 240_000);

  it('keeps the serving release when the new one cannot start', async () => {
    const serving = servingRelease();
    const checkout = copyCheckout(root, 'broken', (dir) => {
      harmless(dir);
      cannotStart(dir);
    });
    const traffic = load();
    const run = await atrium(root, checkout, ['update', '--root', root]);
    const tally = await traffic.stop();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`release ${releaseId(checkout)} did not become ready`);
    expect(servingRelease()).toBe(serving);
    expectNoGap(tally, 'update to a release that cannot start');
  }, 240_000);

  it('goes back with --rollback while requests keep coming', async () => {
    const traffic = load();
    const run = await atrium(root, repo, ['update', '--root', root, '--rollback']);
    const tally = await traffic.stop();
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(servingRelease()).toBe(releaseId(repo));
    expectNoGap(tally, 'rollback');
  }, 240_000);
});
