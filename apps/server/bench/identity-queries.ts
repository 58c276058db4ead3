// Which SQL statements each step of a sign-in and of a refresh grant sends (issue 18): one flow
// through the whole app on PostgreSQL, each statement the pg driver sends printed under its step.
// Run: TEST_DATABASE_URL=postgres://… node apps/server/bench/identity-queries.ts
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { hashPassword } from '../src/lib/passwords.ts';
import type { MailMessage } from '../src/lib/mail.ts';
import { createOrganizationWithAdmin, createUser } from '../test/support/fixtures.ts';
import { createTestApp } from '../test/support/test-app.ts';
import { registerTestClient } from '../test/identity/support/clients.ts';

if (!process.env.TEST_DATABASE_URL) throw new Error('Set TEST_DATABASE_URL to a PostgreSQL server');
let statements: string[] = [];
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { text?: string };
  const text = typeof first === 'string' ? first : (first.text ?? '?');
  statements.push(text.replace(/\s+/g, ' ').slice(0, 160));
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'https://app.bench.test/cb';
const codes = new Map<string, string>();
const t = await createTestApp({
  deps: { deliverMail: async (m: MailMessage) => void codes.set(m.to, m.secretForOutboxLog ?? '') },
});
const org = await createOrganizationWithAdmin(t.db);
const rp = await registerTestClient(t.db, t.config, { organizationId: org.id, redirectUri: REDIRECT });
const user = await createUser(t.db, org.id, { passwordHash: await hashPassword(PASSWORD) });
const jar = new Map<string, string>();
async function send(o: { method?: string; url: string; headers?: Record<string, string>; payload?: string }) {
  const headers = { ...o.headers, cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
  const res = await t.app.inject({ ...o, method: (o.method ?? 'GET') as 'GET', headers });
  const set = res.headers['set-cookie'];
  for (const line of (Array.isArray(set) ? set : set ? [set] : []) as string[]) {
    const [pair = ''] = line.split(';');
    jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
  }
  return res;
}
async function step<T>(name: string, work: () => Promise<T>): Promise<T> {
  statements = [];
  const result = await work();
  await new Promise((resolve) => setTimeout(resolve, 50)); // what the request left to run after answering
  console.log(`\n## ${name}: ${statements.length} statements`);
  for (const s of statements) console.log(`  ${s}`);
  return result;
}
const token = (form: Record<string, string>) => ({
  method: 'POST',
  url: '/oidc/token',
  headers: {
    'content-type': 'application/x-www-form-urlencoded',
    authorization: `Basic ${Buffer.from(`${rp.clientId}:${rp.clientSecret}`).toString('base64')}`,
  },
  payload: new URLSearchParams(form).toString(),
});
const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');
const json = { 'content-type': 'application/json' };
const auth = await step('authorize', () =>
  send({
    url: `/oidc/auth?${new URLSearchParams({ client_id: rp.clientId, response_type: 'code', scope: 'openid email', redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's' })}`,
  }),
);
const uid = new URL(String(auth.headers.location), 'http://x').searchParams.get('uid')!;
await step('password', () =>
  send({
    method: 'POST',
    url: `/api/interactions/${uid}/password`,
    headers: json,
    payload: JSON.stringify({ email: user.email, password: PASSWORD }),
  }),
);
for (let i = 0; i < 100 && !codes.get(user.email); i++) await new Promise((r) => setTimeout(r, 10));
const done = await step('code', () =>
  send({
    method: 'POST',
    url: `/api/interactions/${uid}/code`,
    headers: json,
    payload: JSON.stringify({ code: codes.get(user.email)! }),
  }),
);
const resumed = await step('resume', () => {
  const to = new URL(JSON.parse(done.body).redirectTo as string, 'http://localhost');
  return send({ url: to.pathname + to.search });
});
const code = new URL(String(resumed.headers.location)).searchParams.get('code')!;
const tokens = await step('token', () =>
  send(token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier })),
);
let refresh = JSON.parse(tokens.body).refresh_token as string;
for (let i = 0; i < 2; i++) {
  const res = await step(`refresh ${i + 1}`, () =>
    send(token({ grant_type: 'refresh_token', refresh_token: refresh })),
  );
  refresh = JSON.parse(res.body).refresh_token as string;
}
// With --loop N: N more refresh grants one after another, quietly, for a CPU profile (node --cpu-prof).
const loop = Number(process.argv[process.argv.indexOf('--loop') + 1] ?? 0);
if (process.argv.includes('--loop')) {
  pg.Client.prototype.query = query as typeof pg.Client.prototype.query;
  const chains = [refresh];
  const started = performance.now();
  let done = 0;
  await Promise.all(
    chains.map(async (first) => {
      let current = first;
      while (done < loop) {
        const res = await send(token({ grant_type: 'refresh_token', refresh_token: current }));
        current = JSON.parse(res.body).refresh_token as string;
        done++;
      }
    }),
  );
  console.log(`\n${done} refresh grants in ${(performance.now() - started).toFixed(0)} ms`);
}
await t.close();
