import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganizationWithAdmin, signInAs, type TestOrganization } from '../support/fixtures.ts';
import { Mailbox } from '../support/mailbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, as } from './helpers.ts';

// Issue 42 item 1: a personal address per user, where the invitation goes. This Atrium does not
// host mail (no MAIL_SOCKETMAP_ADDRESS), so an address without a personal one is still invited at
// its own address (the mail world's delivery.test.ts covers a hosted domain).
let mailbox: Mailbox;
let t: TestApp;
let org: TestOrganization;
let admin: ReturnType<typeof as>;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  t = await createTestApp({ env: { SMTP_URL: mailbox.url } });
  org = await createOrganizationWithAdmin(t.db);
  admin = as(t, await signInAs(t.db, org.admin));
  await addDomain(t.db, org.id, 'personal.test');
});

afterAll(async () => {
  await t.close();
  await mailbox.close();
});

const add = (localPart: string, extra: object) =>
  admin.post('/api/users', {
    firstName: 'Pat',
    lastName: 'Person',
    localPart,
    domain: 'personal.test',
    groupIds: [],
    credential: 'invitation',
    ...extra,
  });

describe('a personal address per user', () => {
  it('sends the invitation to the personal address, and shows it on the user’s page', async () => {
    const created = await add('pat', { personalEmail: '  Pat.Home@Example.ORG ' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ invited: true, invitationSentTo: 'pat.home@example.org' });
    const mail = await mailbox.waitFor('pat.home@example.org', { subject: /invited/ });
    expect(mail.to).toEqual(['pat.home@example.org']);
    expect(mail.text).toContain('pat@personal.test');
    expect(mailbox.messages.some((m) => m.to.includes('pat@personal.test'))).toBe(false);
    const detail = await admin.get(`/api/users/${created.body.user.id}`);
    expect(detail.body.personalEmail).toBe('pat.home@example.org');

    // Sending the invitation again goes there too.
    const before = mailbox.count;
    const again = await admin.post(`/api/users/${created.body.user.id}/password-link`, {});
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ sentTo: 'pat.home@example.org' });
    await mailbox.waitFor('pat.home@example.org', { after: before });
  });

  it('sends an active user’s password reset to their own mailbox, which they read, not the personal address', async () => {
    const created = await add('active', {
      credential: 'password',
      password: 'a long enough passphrase',
      personalEmail: 'active.home@example.org',
    });
    expect(created.status).toBe(201);
    const before = mailbox.count;
    const reset = await admin.post(`/api/users/${created.body.user.id}/password-link`, {});
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ sentTo: 'active@personal.test' });
    const mail = await mailbox.waitFor('active@personal.test', { after: before });
    expect(mail.to).toEqual(['active@personal.test']);
    expect(mailbox.messages.some((m) => m.to.includes('active.home@example.org'))).toBe(false);
  });

  it('without a personal address, invites at the own address when Atrium does not host its mail', async () => {
    const created = await add('solo', {});
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ invitationSentTo: 'solo@personal.test' });
    await mailbox.waitFor('solo@personal.test', { subject: /invited/ });
    const domains = await admin.get('/api/users/email-domains');
    expect(domains.body).toMatchObject({ domains: ['personal.test'], mailHosted: [] });
  });

  it('refuses the user’s own new address and what is not an address, naming the field', async () => {
    const own = await add('same', { personalEmail: 'same@personal.test' });
    expect(own.status).toBe(400);
    expect(own.body.error.fields.personalEmail).toMatch(/address being created here/);
    const bad = await add('bad', { personalEmail: 'not an address' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields.personalEmail).toBe('Enter an address such as ann@example.org');
  });

  it('is changed and removed on the user’s page', async () => {
    const created = await add('edit', { credential: 'password', password: 'a long enough passphrase' });
    expect(created.status).toBe(201);
    const id = created.body.user.id as string;
    const names = { firstName: 'Pat', lastName: 'Person' };
    expect(
      (await admin.patch(`/api/users/${id}`, { ...names, personalEmail: 'Edit@Home.example' })).status,
    ).toBe(200);
    expect((await admin.get(`/api/users/${id}`)).body.personalEmail).toBe('edit@home.example');
    // Names alone leave it as it is; an empty one removes it.
    expect((await admin.patch(`/api/users/${id}`, names)).status).toBe(200);
    expect((await admin.get(`/api/users/${id}`)).body.personalEmail).toBe('edit@home.example');
    const own = await admin.patch(`/api/users/${id}`, { ...names, personalEmail: 'edit@personal.test' });
    expect(own.status).toBe(400);
    expect((await admin.patch(`/api/users/${id}`, { ...names, personalEmail: '' })).status).toBe(200);
    expect((await admin.get(`/api/users/${id}`)).body.personalEmail).toBeNull();
  });
});
