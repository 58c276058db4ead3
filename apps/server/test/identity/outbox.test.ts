import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeOutbox, readOutbox } from '../../src/lib/mail.ts';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createOrganizationWithAdmin, signInAs, type TestOrganization } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, as } from '../users/helpers.ts';
import { openSignIn } from './support/sign-in.ts';

const PASSWORD = 'correct horse battery staple';

describe('sign-in without an SMTP server', () => {
  let server: TestApp;
  let org: TestOrganization;

  beforeAll(async () => {
    server = await createTestApp({ listen: true });
    org = await createOrganizationWithAdmin(server.db, { passwordHash: await hashPassword(PASSWORD) });
  });

  afterAll(async () => {
    await server?.close();
  });

  /** Every stored text of the outbox and the job queue, as a database reader sees it. */
  async function everythingStored(): Promise<string> {
    const { rows } = await sql<{ row: string }>`
      select (select coalesce(string_agg(m::text, ' '), '') from mail_outbox m)
        || (select coalesce(string_agg(j::text, ' '), '') from jobs j) as row`.execute(server.db);
    return rows[0]!.row;
  }

  it('puts the code e-mail in the outbox for the operator, sealed at rest, and the code signs in', async () => {
    const { post } = await openSignIn(server.config.publicUrl.origin);
    const sent = await post('password', { email: org.admin.email, password: PASSWORD });
    expect(sent.status).toBe(200);
    expect(JSON.parse(sent.body)).toMatchObject({ stage: 'code', codeSent: true });

    // The operator reads the outbox with the secret (npm run atrium -- outbox).
    const [mail] = await readOutbox(server.db, server.config, { to: org.admin.email });
    expect(mail?.subject).toBe('Your Atrium sign-in code');
    const code = /\b(\d{6})\b/.exec(mail!.text)?.[1];
    expect(code).toBeTruthy();
    expect(mail!.html).toContain(code);

    // A database reader (a backup, the write-ahead log) finds neither the code nor the message.
    const stored = await everythingStored();
    expect(stored).toContain(org.admin.email);
    expect(stored).not.toContain(code);
    expect(stored).not.toContain('finish signing in');

    const done = await post('code', { code });
    expect(done.status).toBe(200);
  });

  it('keeps set-password links out of the database in clear text', async () => {
    await addDomain(server.db, org.id, 'outbox.test');
    const admin = as(server, await signInAs(server.db, org.admin));
    const created = await admin.post('/api/users', {
      firstName: 'Ivy',
      lastName: 'Invitee',
      localPart: 'ivy',
      domain: 'outbox.test',
      groupIds: [],
      credential: 'invitation',
    });
    expect(created.status).toBe(201);
    expect(created.body.mailSent).toBe(true);
    const [mail] = await readOutbox(server.db, server.config, { to: 'ivy@outbox.test' });
    const link = /https?:\/\/\S+/.exec(mail!.text)?.[0];
    expect(link).toContain('/invite/');
    const token = new URL(link!).pathname.split('/').at(-1)!;
    expect(await everythingStored()).not.toContain(token);
  });

  it('forgets the sent messages after a week and the payloads of sent jobs at once', async () => {
    const before = await readOutbox(server.db, server.config);
    expect(before.length).toBeGreaterThan(0);
    const jobs = await server.db.selectFrom('jobs').select(['status', 'payload']).execute();
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) expect(job).toEqual({ status: 'done', payload: {} });

    // Eight days pass for one message.
    await server.db
      .updateTable('mail_outbox')
      .set({ created_at: sql`now() - interval '8 days'` })
      .where('id', '=', before[0]!.id)
      .execute();
    await purgeOutbox(server.db);
    const after = await readOutbox(server.db, server.config);
    expect(after.map((m) => m.id)).toEqual(before.slice(1).map((m) => m.id));
  });
});
