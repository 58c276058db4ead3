import { createServer, type Server, type Socket } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_CODES_PER_HOUR } from '../../src/modules/auth/sign-in/codes/email-codes.ts';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createOrganizationWithAdmin, type TestOrganization } from '../support/fixtures.ts';
import { Mailbox } from '../support/mailbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { openSignIn } from './support/sign-in.ts';

const PASSWORD = 'correct horse battery staple';

/** Lets the queue's backoff elapse, as time passing would, and wakes the worker. */
async function retryNow(server: TestApp): Promise<void> {
  await server.db
    .updateTable('jobs')
    .set({ run_at: sql`now()` })
    .where('status', '=', 'queued')
    .execute();
  await server.app.jobs.drain();
}

describe('sign-in while the mail server is down, then back', () => {
  let server: TestApp;
  let org: TestOrganization;
  let port: number;
  let mailbox: Mailbox | undefined;

  beforeAll(async () => {
    // A port where a mail server was and is not any more: connections are refused.
    const gone = await Mailbox.start();
    port = gone.port;
    await gone.close();
    server = await createTestApp({ listen: true, env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
    org = await createOrganizationWithAdmin(server.db, { passwordHash: await hashPassword(PASSWORD) });
  });

  afterAll(async () => {
    await server?.close();
    await mailbox?.close();
  });

  it('says the code will arrive, spends none of the hourly codes, and delivers once the server is back', async () => {
    // More sign-ins than the hourly codes: failed sends use none of them.
    let last!: Awaited<ReturnType<typeof openSignIn>>;
    for (let i = 0; i <= MAX_CODES_PER_HOUR; i++) {
      last = await openSignIn(server.config.publicUrl.origin);
      const sent = await last.post('password', { email: org.admin.email, password: PASSWORD });
      expect(sent.status, sent.body).toBe(200);
      expect(JSON.parse(sent.body)).toMatchObject({ stage: 'code', email: org.admin.email, codeSent: false });
    }
    // Trying the password step again neither fails nor claims the code went out.
    const again = await last.post('password', { email: org.admin.email, password: PASSWORD });
    expect(again.status, again.body).toBe(200);
    expect(JSON.parse(again.body)).toMatchObject({ stage: 'code', codeSent: false });
    const state = await last.browser.request(`/api/interactions/${last.uid}/state`);
    expect(JSON.parse(state.body)).toMatchObject({ stage: 'code', codeSent: false });

    // The mail server comes back where it was; the queue's next try delivers the newest code
    // (the older codes died with their unsent messages).
    mailbox = await Mailbox.start(port);
    await retryNow(server);
    const code = await mailbox.waitForCode(org.admin.email);
    expect(mailbox.messages).toHaveLength(1);
    const done = await last.post('code', { code });
    expect(done.status, done.body).toBe(200);

    // Codes that reached nobody do not count, and neither does the delivered one, which was used
    // (issue 17 item 6): the hour still has all its codes. (Each dies before the next sign-in,
    // which would otherwise be sent the same one again: sign-in-code-reuse.test.ts.)
    const codesDie = () =>
      server.db
        .updateTable('email_codes')
        .set({ expires_at: sql`now() - interval '1 second'` })
        .where('identifier', '=', org.admin.email)
        .where('consumed_at', 'is', null)
        .execute();
    for (let i = 0; i < MAX_CODES_PER_HOUR; i++) {
      await codesDie();
      const next = await openSignIn(server.config.publicUrl.origin);
      const sent = await next.post('password', { email: org.admin.email, password: PASSWORD });
      expect(sent.status, sent.body).toBe(200);
      expect(JSON.parse(sent.body)).toMatchObject({ codeSent: true });
    }
    await codesDie();
    const over = await openSignIn(server.config.publicUrl.origin);
    const refused = await over.post('password', { email: org.admin.email, password: PASSWORD });
    expect(refused.status, refused.body).toBe(429);
  });

  it('keeps a forgot-password e-mail until the mail server takes it', async () => {
    await mailbox!.close();
    mailbox = undefined;
    const start = await server.app.inject({
      method: 'POST',
      url: '/api/password-reset/start',
      payload: { email: org.admin.email },
    });
    expect(start.statusCode).toBe(200);
    // The send happens after the answer; wait for its first failed try.
    await vi.waitFor(
      async () => {
        const job = await server.db
          .selectFrom('jobs')
          .select('last_error')
          .where('status', '=', 'queued')
          .executeTakeFirst();
        expect(job?.last_error).toBeTruthy();
      },
      { timeout: 10_000, interval: 100 },
    );
    mailbox = await Mailbox.start(port);
    await retryNow(server);
    const mail = await mailbox.waitFor(org.admin.email, { subject: /password reset/ });
    expect(mail.text).toMatch(/\b\d{6}\b/);
  });
});

describe('a mail server that accepts connections and never answers', () => {
  let server: TestApp;
  let org: TestOrganization;
  let silent: Server;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    server = await createTestApp({ listen: true, env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
    org = await createOrganizationWithAdmin(server.db, { passwordHash: await hashPassword(PASSWORD) });
  });

  afterAll(async () => {
    await server?.close();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent?.close(resolve));
  });

  // nodemailer's own waits add up to minutes; the sign-in page must not hang on them.
  it(
    'answers the password step within seconds, saying the code will arrive',
    { timeout: 15_000 },
    async () => {
      const { post } = await openSignIn(server.config.publicUrl.origin);
      const sent = await post('password', { email: org.admin.email, password: PASSWORD });
      expect(sent.status, sent.body).toBe(200);
      expect(JSON.parse(sent.body)).toMatchObject({ stage: 'code', codeSent: false });
      // The attempt gives up on its own (greeting timeout) and the message waits for a retry.
      await vi.waitFor(
        async () => {
          const job = await server.db.selectFrom('jobs').select(['status', 'last_error']).executeTakeFirst();
          expect(job).toMatchObject({
            status: 'queued',
            last_error: expect.stringMatching(/greeting|timeout/i),
          });
        },
        { timeout: 10_000, interval: 200 },
      );
    },
  );
});
