// npm run bench -- dav-accounts
// Many phones set up at once (issue 43 item 3): BENCH_ACCOUNTS accounts (1,000 by default) in
// BENCH_ORGANIZATIONS organisations make their first CalDAV/CardDAV requests BENCH_CONCURRENCY
// (20) at a time through Debian's Caddy and Radicale as install wires them, each as a phone does
// when an account is added: PROPFIND of /dav/ for its principal, then of its home. Prints the
// answers by status (a 502 or 503 would show here), the first contact's time (median, 95th
// percentile, slowest), the wall time, the DAV jobs queued (none expected) and the accounts left
// without their defaults; then the same requests again, once every account is set up, for what
// the gate costs a request that needs nothing made. PGlite by default; TEST_DATABASE_URL=postgres://…
// runs it on that server. Needs root (Radicale runs as its package's user). Measures only.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createAppPassword } from '../src/modules/mail/app-passwords/app-passwords.service.ts';
import { TestDavHost } from '../test/support/dav-host.ts';
import { createOrganizationWithAdmin, createUser } from '../test/support/fixtures.ts';
import { createTestApp } from '../test/support/test-app.ts';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1_000);
const ORGANIZATIONS = Number(process.env.BENCH_ORGANIZATIONS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const MAIL_HOST = 'localhost';
const BODY =
  '<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:current-user-principal/></D:prop></D:propfind>';

const dav = await TestDavHost.prepare();
const server = await createTestApp({
  listen: true,
  env: {
    MAIL_HOST,
    DAV_RADICALE_ADDRESS: dav.radicaleAddress,
    TRUST_PROXY: '127.0.0.1',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
  },
});
try {
  await dav.start({ mailHost: MAIL_HOST, atriumPort: Number(server.config.port) });
  const organizations: string[] = [];
  for (let i = 0; i < ORGANIZATIONS; i++)
    organizations.push((await createOrganizationWithAdmin(server.db)).id);
  const accounts: { id: string; authorization: string }[] = [];
  for (let i = 0; i < ACCOUNTS; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, ACCOUNTS - i) }, async (_, j) => {
        const user = await createUser(server.db, organizations[(i + j) % ORGANIZATIONS]!);
        const { password } = await createAppPassword(
          server.db,
          { organizationId: user.organizationId, userId: user.id, label: user.email, ip: '127.0.0.1' },
          'iPhone',
        );
        return {
          id: user.id,
          authorization: `Basic ${Buffer.from(`${user.email}:${password}`).toString('base64')}`,
        };
      }),
    );
    accounts.push(...batch);
  }
  console.log(`${ACCOUNTS} accounts in ${ORGANIZATIONS} organisations, ${CONCURRENCY} at a time`);

  const round = async (label: string) => {
    const statuses = new Map<number, number>();
    /** What the answers that were not 207 said (Caddy's own 503, Atrium's, Radicale's). */
    const others = new Set<string>();
    const times: number[] = [];
    const queue = [...accounts];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const begun = performance.now();
          for (const davPath of ['/dav/', `/dav/${next.id}/`]) {
            const answer = await dav.fetch(MAIL_HOST, {
              method: 'PROPFIND',
              path: davPath,
              headers: { authorization: next.authorization, depth: davPath === '/dav/' ? '0' : '1' },
              body: BODY,
            });
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
            if (answer.status !== 207) others.add(`${answer.status} ${answer.body.slice(0, 160).trim()}`);
          }
          times.push(performance.now() - begun);
        }
      }),
    );
    const wall = (performance.now() - started) / 1000;
    for (const other of others) console.log(`  ${other}`);
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(0);
    console.log(
      `${label}: answers ${JSON.stringify(Object.fromEntries(statuses))}; two PROPFINDs per account ` +
        `median ${at(0.5)} ms, p95 ${at(0.95)} ms, slowest ${at(1)} ms; all in ${wall.toFixed(1)} s`,
    );
  };

  await round('first requests');
  const jobs = await server.db
    .selectFrom('jobs')
    .select((eb) => ['kind', eb.fn.countAll<number>().as('n')])
    .where('kind', 'like', 'dav.%')
    .groupBy('kind')
    .execute();
  const stored = (id: string, name: string) =>
    existsSync(path.join(dav.storage, 'collection-root', id, name, '.Radicale.props'));
  const without = accounts.filter((a) => !stored(a.id, 'calendar') || !stored(a.id, 'contacts')).length;
  console.log(
    `DAV jobs queued: ${jobs.length === 0 ? 'none' : JSON.stringify(jobs)}; accounts without their defaults: ${without}`,
  );
  await round('the same, every account set up');
} finally {
  await dav.close();
  await server.close();
}
