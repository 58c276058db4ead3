// npm run bench -- mail-protection
// What the organisations' spam policy costs Atrium: building rspamd's allow, block and settings
// maps (2,000 organisations, each with a verified domain, 5 allowed and 5 blocked senders, a third
// off the default settings, and 2,000 people with an own entry), a poll while nothing changed (the
// 304 rspamd gets every 30 s per map), and Postfix's sending-limit policy requests over one
// connection, one at a time as Postfix asks. PGlite by default; TEST_DATABASE_URL=postgres://…
// runs it on that server. Measures only; never fails on a figure.
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { rspamdMapToken } from '../src/modules/mail-protection/rspamd-maps.ts';
import { freePort } from '../test/support/free-port.ts';
import { testEnv } from '../test/support/test-app.ts';
import { createTestDatabase } from '../test/support/test-database.ts';
import { seedOrganizations, seedUsers } from './users-list-seed.ts';

const ORGS = Number(process.env.BENCH_ORGS ?? 2_000);
const POLLS = Number(process.env.BENCH_RUNS ?? 2_000);

const database = await createTestDatabase();
const db = database.db;
const orgs = await seedOrganizations(db, 'mp', ORGS);
await seedUsers(db, orgs.slice(0, 200), 10);
await sql`
  insert into domains (organization_id, name, state, verification_token, dkim_private_key_enc, dkim_public_key)
  select id, replace(id::text, '-', '') || '.example.com', 'verified', 'token-xxxxxxxxxxxxxxxxxxxxxxxxxxx', 'sealed', 'public'
  from organizations where site_name like 'mp-%'`.execute(db);
await sql`
  insert into mail_sender_lists (organization_id, list, value)
  select o.id, l.list, l.list || i || '.' || replace(o.id::text, '-', '') || '.example.net'
  from organizations o cross join generate_series(1, 5) i cross join (values ('allow'), ('block')) l(list)
  where o.site_name like 'mp-%'`.execute(db);
await sql`
  insert into mail_sender_lists (organization_id, user_id, list, value)
  select organization_id, id, 'block', 'news@' || replace(id::text, '-', '') || '.example.org' from users`.execute(
  db,
);
await sql`
  insert into mail_spam_settings (organization_id, sensitivity, greylisting)
  select id, case when random() < 0.5 then 'strict' else 'relaxed' end, random() < 0.5
  from organizations where site_name like 'mp-%' and random() < 0.33`.execute(db);
await sql`analyze`.execute(db);

const policyPort = await freePort();
const config = loadConfig(testEnv({ MAIL_POLICY_ADDRESS: `127.0.0.1:${policyPort}` }));
const app = await buildApp(config, { db });
await app.ready();
const token = rspamdMapToken(config.secret);
const get = (map: string, etag?: string) =>
  app.inject({
    method: 'GET',
    url: `/api/mail/rspamd/${token}/${map}`,
    headers: etag ? { 'if-none-match': etag } : {},
  });

console.log(`${ORGS} organisations, ${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'}:`);
for (const map of ['allow', 'block', 'settings']) {
  await get(map);
  const runs = 20;
  const started = performance.now();
  let response = await get(map);
  for (let i = 1; i < runs; i++) response = await get(map);
  const ms = (performance.now() - started) / runs;
  const lines = response.body.split('\n').filter((l) => l && !l.startsWith('#')).length;
  console.log(
    `  ${map} map, built: ${ms.toFixed(1)} ms (${lines} lines, ${(response.body.length / 1024).toFixed(0)} KB)`,
  );
}
const etag = (await get('allow')).headers.etag as string;
let started = performance.now();
for (let i = 0; i < POLLS; i++) {
  const response = await get('allow', etag);
  if (response.statusCode !== 304) throw new Error(`poll answered ${response.statusCode}`);
}
console.log(`  unchanged poll (304): ${(POLLS / ((performance.now() - started) / 1000)).toFixed(0)}/s`);

// Sending-limit policy requests, as Postfix's submission asks at the end of each message.
const user = await db.selectFrom('users').select('email').limit(1).executeTakeFirstOrThrow();
const socket = connect(policyPort, '127.0.0.1');
await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
let waiting: ((answer: string) => void) | undefined;
let buffer = '';
socket.on('data', (chunk: Buffer) => {
  buffer += chunk.toString();
  const end = buffer.indexOf('\n\n');
  if (end !== -1) {
    const answer = buffer.slice(0, end);
    buffer = buffer.slice(end + 2);
    waiting?.(answer);
  }
});
const ask = () =>
  new Promise<string>((resolve) => {
    waiting = resolve;
    socket.write(
      `request=smtpd_access_policy\nprotocol_state=END-OF-MESSAGE\nsasl_username=${user.email}\nrecipient_count=1\n\n`,
    );
  });
const requests = 250; // within the default plan's 300 an hour: each is counted, none held
started = performance.now();
for (let i = 0; i < requests; i++) {
  const answer = await ask();
  if (answer !== 'action=DUNNO') throw new Error(`policy answered ${answer}`);
}
console.log(
  `  sending-limit policy request (counted): ${(requests / ((performance.now() - started) / 1000)).toFixed(0)}/s`,
);
socket.destroy();
await app.close();
await database.drop();
