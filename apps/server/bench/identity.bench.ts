// Sign-in throughput on this machine, in one run (issue 3):
//  - Atrium: complete sign-in flows per second (authorize → password → e-mail code → resume → token)
//    and refresh grants per second, through the whole server (app.inject: routing, guard, provider,
//    database), PGlite by default or TEST_DATABASE_URL=postgres://… for PostgreSQL;
//  - the floors they are held against: argon2id verifications per second on one core, and the same
//    code-and-token flow and refresh grants on a bare oidc-provider, with its in-memory adapter and
//    with the simplest adapter on the same database as Atrium (bare-sql-adapter.ts), and that last
//    flow once more with one argon2id verification in its login step: the least any sign-in with a
//    password can cost on that database.
// Seconds per figure: BENCH_IDENTITY_SECONDS (default 5); concurrent flows: BENCH_IDENTITY_CONCURRENCY (4);
// BENCH_IDENTITY_ATRIUM_ONLY=1 measures Atrium alone (to profile it).
// Measures only; never fails on a figure.
import { performance } from 'node:perf_hooks';
import { verify } from '@node-rs/argon2';
import { hashPassword } from '../src/lib/passwords.ts';
import type { MailMessage } from '../src/lib/mail.ts';
import { createOrganizationWithAdmin, createUser } from '../test/support/fixtures.ts';
import { createTestApp } from '../test/support/test-app.ts';
import { registerTestClient } from '../test/identity/support/clients.ts';
import { benchBareProvider } from './bare-provider.ts';
import { openBareDatabase } from './bare-sql-adapter.ts';
import { client, location, pkce, tokenRequest, type Send } from './identity-browser.ts';
import { cpuPerOperationText, rate } from './operation-rate.ts';

const SECONDS = Number(process.env.BENCH_IDENTITY_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_IDENTITY_CONCURRENCY ?? 4);
const USER_POOL = 1_000;
const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'https://app.bench.test/cb';

/**
 * Milliseconds spent per step of the Atrium flow, to show where a sign-in's time goes, and the
 * event loop's CPU in them: that one is a step's own only with BENCH_IDENTITY_CONCURRENCY=1.
 */
const stepTotals = new Map<string, { ms: number; cpuMs: number; count: number }>();
/**
 * The codes e-mailed so far, by address, and the flows waiting for one: the mail queue delivers a
 * code just after the password step has answered, and a waiting flow goes on the moment it does.
 */
class CodeMailbox {
  private readonly codes = new Map<string, string>();
  private readonly waiting = new Map<string, (code: string) => void>();

  deliver(to: string, code: string): void {
    const waiter = this.waiting.get(to);
    if (waiter) {
      this.waiting.delete(to);
      waiter(code);
    } else this.codes.set(to, code);
  }

  forget(email: string): void {
    this.codes.delete(email);
  }

  next(email: string): Promise<string> {
    const code = this.codes.get(email);
    if (code !== undefined) {
      this.codes.delete(email);
      return Promise.resolve(code);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no code was e-mailed to ${email}`)), 10_000);
      this.waiting.set(email, (mailed) => {
        clearTimeout(timer);
        resolve(mailed);
      });
    });
  }
}

async function timed<T>(step: string, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const cpu = process.threadCpuUsage();
  try {
    return await work();
  } finally {
    const used = process.threadCpuUsage(cpu);
    const total = stepTotals.get(step) ?? { ms: 0, cpuMs: 0, count: 0 };
    total.ms += performance.now() - start;
    total.cpuMs += (used.user + used.system) / 1000;
    total.count++;
    stepTotals.set(step, total);
  }
}

// ---- Atrium -------------------------------------------------------------------------------------
async function benchAtrium() {
  const codes = new CodeMailbox();
  // Only the sign-in code's message carries a secret; the "new sign-in" notice does not.
  const deliverMail = async (m: MailMessage) => {
    if (m.secretForOutboxLog) codes.deliver(m.to, m.secretForOutboxLog);
  };
  const t = await createTestApp({ deps: { deliverMail } });
  try {
    const passwordHash = await hashPassword(PASSWORD);
    const org = await createOrganizationWithAdmin(t.db);
    const rp = await registerTestClient(t.db, t.config, { organizationId: org.id, redirectUri: REDIRECT });
    // Every flow signs in a different user, as a busy morning does: one account gets at most
    // 6 codes an hour, so a few accounts signing in again and again would be refused.
    const users: { email: string }[] = [];
    for (let i = 0; i < USER_POOL; i++) users.push(await createUser(t.db, org.id, { passwordHash }));
    // Each simulated browser has its own address, as real users do (per-address limits apply).
    const send: Send = (o) =>
      t.app.inject({ ...o, method: (o.method ?? 'GET') as 'GET', remoteAddress: o.headers?.['x-bench-ip'] });
    let flowNo = 0;
    const refreshTokens: string[] = [];

    const signIn = async () => {
      const n = ++flowNo;
      const { email } = users[n % users.length]!;
      const browser = client(send, `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`);
      const { verifier, challenge } = pkce();
      const auth = await timed('authorize', () =>
        browser({
          url: `/oidc/auth?${new URLSearchParams({ client_id: rp.clientId, response_type: 'code', scope: 'openid email', redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's' })}`,
        }),
      );
      // The provider sends a browser nobody is signed in on straight to /login?uid=….
      const uid = new URL(location(auth), 'http://x').searchParams.get('uid')!;
      const json = { 'content-type': 'application/json' };
      codes.forget(email);
      const pw = await timed('password', () =>
        browser({
          method: 'POST',
          url: `/api/interactions/${uid}/password`,
          headers: json,
          payload: JSON.stringify({ email, password: PASSWORD }),
        }),
      );
      if (pw.statusCode !== 200) throw new Error(`password step: ${pw.body}`);
      const mailed = await codes.next(email);
      const done = await timed('code', () =>
        browser({
          method: 'POST',
          url: `/api/interactions/${uid}/code`,
          headers: json,
          payload: JSON.stringify({ code: mailed }),
        }),
      );
      if (done.statusCode !== 200) throw new Error(`code step: ${done.body}`);
      const resumed = await timed('resume', () =>
        browser({
          url: location({ headers: { location: JSON.parse(done.body).redirectTo } }),
        }),
      );
      const code = new URL(String(resumed.headers.location)).searchParams.get('code');
      if (!code) throw new Error(`no code: ${String(resumed.headers.location)}`);
      const tokens = await timed('token', () =>
        browser(
          tokenRequest(rp.clientId, rp.clientSecret, {
            grant_type: 'authorization_code',
            code,
            redirect_uri: REDIRECT,
            code_verifier: verifier,
          }),
        ),
      );
      const refresh = JSON.parse(tokens.body).refresh_token as string;
      if (!refresh) throw new Error(`token: ${tokens.body}`);
      refreshTokens.push(refresh);
    };
    const signIns = await rate(
      Array.from({ length: CONCURRENCY }, () => signIn),
      SECONDS,
      'sign-in',
    );

    const chains = refreshTokens.slice(-CONCURRENCY);
    let refreshNo = 0;
    const refreshes = await rate(
      chains.map((_, i) => async () => {
        // Many app back ends, as in production, rather than one address's rate limit.
        const n = ++refreshNo;
        const ip = `10.200.${(n >> 8) & 255}.${n & 255}`;
        const request = tokenRequest(rp.clientId, rp.clientSecret, {
          grant_type: 'refresh_token',
          refresh_token: chains[i]!,
        });
        const res = await send({ ...request, headers: { ...request.headers, 'x-bench-ip': ip } });
        const next = JSON.parse(res.body).refresh_token as string | undefined;
        if (!next) throw new Error(`refresh: ${res.body}`);
        chains[i] = next;
      }),
      SECONDS,
      'refresh grant',
    );
    return { signIns, refreshes, database: t.database.url ? 'PostgreSQL' : 'PGlite' };
  } finally {
    await t.close();
  }
}

// ---- argon2id on one core ----------------------------------------------------------------------
async function benchArgon2() {
  const hash = await hashPassword(PASSWORD);
  // One verification at a time: one core's worth, whatever the thread pool size.
  return rate([() => verify(hash, PASSWORD.normalize('NFKC')).then(() => undefined)], SECONDS);
}

const f = (n: number) => n.toFixed(1).padStart(8);
const ratio = (n: number, floor: number) => (n / floor).toFixed(3);
const steps = () =>
  [...stepTotals]
    .map(([step, t]) => {
      const cpu = CONCURRENCY === 1 ? ` (event loop CPU ${(t.cpuMs / t.count).toFixed(2)} ms)` : '';
      return `${step} ${(t.ms / t.count).toFixed(1)} ms${cpu}`;
    })
    .join(', ');
// The benchmark's own client (inject, cookies) is in these too; the database server's CPU is not.
// Held against each other they show what Atrium costs beyond the bare provider on this machine.
if (process.env.BENCH_IDENTITY_ATRIUM_ONLY) {
  // For a profile of Atrium alone (node --cpu-prof): no floors.
  const atrium = await benchAtrium();
  console.log(
    `Atrium on ${atrium.database}: ${f(atrium.signIns)} sign-ins/s, ${f(atrium.refreshes)} refresh grants/s`,
  );
  console.log(`Atrium sign-in, mean time per step: ${steps()}`);
  console.log(`process CPU (all threads): ${cpuPerOperationText()}`);
  process.exit(0);
}
const argon2 = await benchArgon2();
const bareOptions = { password: PASSWORD, redirect: REDIRECT, seconds: SECONDS, concurrency: CONCURRENCY };
const bare = await benchBareProvider(bareOptions);
const bareDb = await openBareDatabase();
const bareSql = await benchBareProvider(bareOptions, bareDb.adapter);
const bareSqlArgon2 = await benchBareProvider(
  bareOptions,
  bareDb.adapter,
  await hashPassword(PASSWORD),
).finally(() => bareDb.close());
const atrium = await benchAtrium();
console.log(`concurrency ${CONCURRENCY}, ${SECONDS} s per figure, Atrium on ${atrium.database}`);
console.log(`argon2id verifications/s, one core          ${f(argon2)}`);
console.log(`bare oidc-provider code+token flows/s        ${f(bare.flows)}   (in memory)`);
console.log(`bare oidc-provider refresh grants/s          ${f(bare.refreshes)}   (in memory)`);
console.log(`bare oidc-provider code+token flows/s        ${f(bareSql.flows)}   (${bareDb.kind}, one table)`);
console.log(
  `bare oidc-provider refresh grants/s          ${f(bareSql.refreshes)}   (${bareDb.kind}, one table)`,
);
console.log(
  `bare flows/s with one argon2id verification  ${f(bareSqlArgon2.flows)}   (${bareDb.kind}, one table) = ${(bareSqlArgon2.flows / argon2).toFixed(2)} × argon2id floor`,
);
console.log(
  `Atrium complete sign-in flows/s              ${f(atrium.signIns)}   = ${(atrium.signIns / argon2).toFixed(2)} × argon2id floor, ${ratio(atrium.signIns, bare.flows)} × bare flow, ${ratio(atrium.signIns, bareSql.flows)} × bare flow on ${bareDb.kind}, ${ratio(atrium.signIns, bareSqlArgon2.flows)} × bare flow with argon2id`,
);
console.log(
  `Atrium refresh grants/s                      ${f(atrium.refreshes)}   = ${ratio(atrium.refreshes, bare.refreshes)} × bare refresh, ${ratio(atrium.refreshes, bareSql.refreshes)} × bare refresh on ${bareDb.kind}`,
);
console.log(`Atrium sign-in, mean time per step: ${steps()}`);
console.log(`process CPU (all threads): ${cpuPerOperationText()}`);
