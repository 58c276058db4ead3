import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createOrganizationWithAdmin, type TestOrganization } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TestBrowser } from './support/browser.ts';
import { uidOf } from './support/sign-in.ts';

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

  it('puts the code e-mail, plain text and HTML, in the outbox, and the code signs in', async () => {
    const browser = new TestBrowser(server.config.publicUrl.origin);
    const hop = await browser.follow('/api/sso/start', (u) => u.pathname === '/login');
    const uid = uidOf(hop.location);
    const sent = await browser.request(`/api/interactions/${uid}/password`, {
      json: { email: org.admin.email, password: PASSWORD },
    });
    expect(sent.status).toBe(200);
    const mail = await server.db
      .selectFrom('mail_outbox')
      .selectAll()
      .where('recipient', '=', org.admin.email)
      .executeTakeFirstOrThrow();
    expect(mail.subject).toBe('Your Atrium sign-in code');
    const code = /\b(\d{6})\b/.exec(mail.text_body)?.[1];
    expect(code).toBeTruthy();
    expect(mail.html_body).toContain(code);
    const done = await browser.request(`/api/interactions/${uid}/code`, { json: { code } });
    expect(done.status).toBe(200);
  });
});
