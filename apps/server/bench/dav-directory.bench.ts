// The organisation's address book at 100, 1,000 and 5,000 active users (issue 43), each of whom
// has made a DAV request (BENCH_DAV_USERS=100,1000,5000 by default), each size in a fresh process.
// Through Caddy and Radicale as install wires them, with Atrium serving the address book:
// - storage: what the address book adds to the database (its two tables, data and indexes) and
//   any files of it in Radicale's storage;
// - first request: a user's first PROPFIND of their home (defaults made in Radicale, the listing
//   completed with the address book), median and 95th percentile, 4 at a time;
// - one rename (the console's PATCH): wall time and this process's CPU (Atrium, the embedded
//   database, and the client side of the requests) until a device's sync-collection from its
//   token returns the card, then until every account's has; what a device downloads for it
//   (the sync answer and the multiget of the one card), against a first full sync.
// PGlite by default; TEST_DATABASE_URL=postgres://… for PostgreSQL (its server's CPU is not in
// this process's figure). Needs root, Debian's radicale and caddy. Measures only; never fails on a figure.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { hashPassword } from '../src/lib/passwords.ts';
import { appPasswordDigest } from '../src/modules/mail/app-passwords/app-passwords.service.ts';
import { TestDavHost } from '../test/support/dav-host.ts';
import { createOrganizationWithAdmin, signInAs } from '../test/support/fixtures.ts';
import { createTestApp } from '../test/support/test-app.ts';

const child = process.env.BENCH_DAV_CHILD;
if (!child) {
  for (const users of (process.env.BENCH_DAV_USERS ?? '100,1000,5000').split(',')) {
    const result = spawnSync(process.execPath, [import.meta.filename], {
      stdio: 'inherit',
      env: { ...process.env, BENCH_DAV_CHILD: users },
    });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
  process.exit(0);
}

const USERS = Number(child);
const MAIL_HOST = 'localhost';
const BATCH = 1000;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
const ms = (value: number) => `${value.toFixed(0)} ms`;
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? 0;
const syncBody = (token: string) =>
  `<?xml version='1.0' encoding='UTF-8' ?><sync-collection xmlns="DAV:"><sync-token>${token}</sync-token><sync-level>1</sync-level><prop><getcontenttype /><getetag /></prop></sync-collection>`;
const multigetBody = (href: string) =>
  `<?xml version='1.0' encoding='UTF-8' ?><CARD:addressbook-multiget xmlns="DAV:" xmlns:CARD="urn:ietf:params:xml:ns:carddav"><prop><getetag /><CARD:address-data /></prop><href>${href}</href></CARD:addressbook-multiget>`;

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const dav = await TestDavHost.prepare();
const server = await createTestApp({
  listen: true,
  env: { MAIL_HOST, DAV_RADICALE_ADDRESS: dav.radicaleAddress, TRUST_PROXY: '127.0.0.1' },
});
await dav.start({ mailHost: MAIL_HOST, atriumPort: Number(server.config.port) });
const { db } = server;
const org = await createOrganizationWithAdmin(db);

// The people, and an app password each (one argon2 hash shared: sign-in finds them by digest).
const passwordHash = await hashPassword('bench');
const people: { id: string; email: string; password: string }[] = [];
for (let start = 0; start < USERS; start += BATCH) {
  const size = Math.min(BATCH, USERS - start);
  const rows = await db
    .insertInto('users')
    .values(
      Array.from({ length: size }, (_, i) => ({
        organization_id: org.id,
        email: `person-${start + i}@bench.example`,
        first_name: 'Person',
        last_name: String(start + i),
        name_key: `person ${start + i}`,
      })),
    )
    .returning(['id', 'email'])
    .execute();
  const passwords = rows.map(() => randomBytes(16).toString('hex'));
  await db
    .insertInto('app_passwords')
    .values(
      rows.map((row, i) => ({
        organization_id: org.id,
        user_id: row.id,
        name: 'Phone',
        lookup: passwords[i]!.slice(0, 4),
        password_hash: passwordHash,
        digest: appPasswordDigest(passwords[i]!),
      })),
    )
    .execute();
  rows.forEach((row, i) => people.push({ ...row, password: passwords[i]! }));
}
const auth = (p: (typeof people)[number]) => ({
  authorization: `Basic ${Buffer.from(`${p.email}:${p.password}`).toString('base64')}`,
});
const request = (p: (typeof people)[number], method: string, davPath: string, body?: string, depth = '1') =>
  dav.fetch(MAIL_HOST, {
    method,
    path: davPath,
    headers: { ...auth(p), depth, 'content-type': 'application/xml; charset=utf-8' },
    body,
  });

// Everyone's first request: the home's listing, which names the address book.
const firstRequests: number[] = [];
let unnamed = 0;
await inParallel(people, 4, async (p) => {
  const at = performance.now();
  const answer = await request(p, 'PROPFIND', `/dav/${p.id}/`);
  firstRequests.push(performance.now() - at);
  if (answer.status !== 207 || !answer.body.includes(`/dav/${p.id}/directory/`)) unnamed++;
});

const tableBytes = Number(
  (
    await sql<{
      bytes: string;
    }>`select pg_total_relation_size('directory_cards') + pg_total_relation_size('directory_versions') as bytes`.execute(
      db,
    )
  ).rows[0]!.bytes,
);
const home = path.join(dav.storage, 'collection-root');
const radicaleDirectories = readdirSync(home).filter((user) =>
  readdirSync(path.join(home, user)).includes('directory'),
).length;

// A device's first sync, then one rename.
const device = people[0]!;
const collection = `/dav/${device.id}/directory/`;
const full = await request(device, 'REPORT', collection, syncBody(''), '0');
const token = /<D:sync-token>([^<]+)</.exec(full.body)![1]!;
const renamed = people[Math.floor(USERS / 2)]!;
const href = `${collection}atrium-user-${renamed.id}.vcf`;
const { headers } = await signInAs(db, org.admin);
const cpu = process.cpuUsage();
const at = performance.now();
const patch = await server.app.inject({
  method: 'PATCH',
  url: `/api/users/${renamed.id}`,
  headers,
  payload: { firstName: 'Renamed', lastName: 'Person' },
});
if (patch.statusCode !== 200) throw new Error(`rename: ${patch.statusCode} ${patch.body}`);
let delta = await request(device, 'REPORT', collection, syncBody(token), '0');
while (!delta.body.includes(href)) delta = await request(device, 'REPORT', collection, syncBody(token), '0');
const visibleMs = performance.now() - at;
const visibleCpu = process.cpuUsage(cpu);
const card = await request(device, 'REPORT', collection, multigetBody(href), '1');
if (!card.body.includes('FN:Renamed Person')) throw new Error(`multiget: ${card.body}`);
// Every account's device syncs from the same token (one address book per organisation).
let wrong = 0;
await inParallel(people, 8, async (p) => {
  const answer = await request(p, 'REPORT', `/dav/${p.id}/directory/`, syncBody(token), '0');
  const hrefs = answer.body.match(/<D:href>/g)?.length ?? 0;
  if (answer.status !== 207 || hrefs !== 1 || !answer.body.includes(`atrium-user-${renamed.id}.vcf`)) wrong++;
});
const everyMs = performance.now() - at;
const everyCpu = process.cpuUsage(cpu);
const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

console.log(`\n${USERS} users (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`);
console.table({
  'directory storage (database)': mb(tableBytes),
  'directory copies in Radicale': `${radicaleDirectories} accounts`,
  'first request, median': ms(percentile(firstRequests, 0.5)),
  'first request, p95': ms(percentile(firstRequests, 0.95)),
  'home listings without the directory': String(unnamed),
  'rename → visible to a device: wall': ms(visibleMs),
  'rename → visible to a device: CPU': ms(cpuMs(visibleCpu)),
  [`rename → synced by all ${USERS} accounts: wall`]: ms(everyMs),
  [`rename → synced by all ${USERS} accounts: CPU`]: ms(cpuMs(everyCpu)),
  'accounts whose sync was not exactly that card': String(wrong),
  'device download for the rename (sync + multiget)': kb(
    Buffer.byteLength(delta.body) + Buffer.byteLength(card.body),
  ),
  'device download, first full sync (hrefs + etags)': kb(Buffer.byteLength(full.body)),
});

await dav.close();
await server.close();
