import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/lib/passwords.ts';
import { createOrganizationWithAdmin, signInAs, type TestOrganization } from '../support/fixtures.ts';
import { Mailbox } from '../support/mailbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, as } from './helpers.ts';

let mailbox: Mailbox;
let t: TestApp;
let org: TestOrganization;
let admin: ReturnType<typeof as>;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  t = await createTestApp({ env: { SMTP_URL: mailbox.url } });
  org = await createOrganizationWithAdmin(t.db);
  admin = as(t, await signInAs(t.db, org.admin));
  await addDomain(t.db, org.id, 'invite.test');
});

afterAll(async () => {
  await t.close();
  await mailbox.close();
});

/** Invites someone and returns the token from the e-mail the SMTP server received. */
async function invite(localPart: string): Promise<{ userId: string; token: string }> {
  const created = await admin.post('/api/users', {
    firstName: 'Ivy',
    lastName: 'Invitee',
    localPart,
    domain: 'invite.test',
    groupIds: [],
    credential: 'invitation',
  });
  expect(created.status).toBe(201);
  const link = await mailbox.waitForLink(`${localPart}@invite.test`);
  return { userId: created.body.user.id, token: new URL(link).pathname.split('/').at(-1)! };
}

const accept = (token: string, password = 'a long enough passphrase') =>
  t.app.inject({
    method: 'POST',
    url: `/api/invitations/${token}/accept`,
    payload: { password, confirmPassword: password },
  });

describe('invitation links', () => {
  it('shows who the link is for, then sets the password once and activates the account', async () => {
    const { userId, token } = await invite('ivy');
    const info = await t.app.inject({ url: `/api/invitations/${token}` });
    expect(info.statusCode).toBe(200);
    expect(info.json()).toMatchObject({
      purpose: 'invite',
      email: 'ivy@invite.test',
      firstName: 'Ivy',
      organizationName: `Org ${org.siteName}`,
    });

    const first = await accept(token);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({
      email: 'ivy@invite.test',
      next: expect.stringMatching(/^\/api\/sso\/start\?ticket=[\w-]{43}&returnTo=%2Fapplication$/),
    });
    const user = await t.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(user.status).toBe('active');
    expect(await verifyPassword(user.password_hash!, 'a long enough passphrase')).toBe(true);

    const second = await accept(token, 'another long passphrase');
    expect(second.statusCode).toBe(410);
    expect(second.json().error).toMatchObject({
      code: 'link_used',
      message: expect.stringMatching(/already been used/),
    });
    const again = await t.app.inject({ url: `/api/invitations/${token}` });
    expect(again.statusCode).toBe(410);
  });

  it('refuses an expired link with a clear message', async () => {
    const { token } = await invite('late');
    await sql`update invitations set expires_at = now() - interval '1 second'`.execute(t.db);
    const info = await t.app.inject({ url: `/api/invitations/${token}` });
    expect(info.statusCode).toBe(410);
    expect(info.json().error).toEqual({
      code: 'link_expired',
      message: 'This link has expired. Ask your administrator to send you a new one.',
    });
    expect((await accept(token)).statusCode).toBe(410);
  });

  it('refuses an unknown token and a weak password', async () => {
    const unknown = await t.app.inject({ url: '/api/invitations/not-a-real-token' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.message).toMatch(/not valid/);
    const { token } = await invite('weak');
    const weak = await accept(token, 'password1');
    expect(weak.statusCode).toBe(400);
    expect(weak.json().error.fields.password).toMatch(/too common/);
    const mismatch = await t.app.inject({
      method: 'POST',
      url: `/api/invitations/${token}/accept`,
      payload: { password: 'a long enough passphrase', confirmPassword: 'something else' },
    });
    expect(mismatch.json().error.fields.confirmPassword).toBe('The passwords do not match');
    // Refusals do not use the link up.
    expect((await accept(token)).statusCode).toBe(200);
  });

  it('a newer invitation replaces the older link; suspension disables it', async () => {
    const { userId, token } = await invite('twice');
    const resent = await admin.post(`/api/users/${userId}/password-link`);
    expect(resent.body).toEqual({ mailSent: true, sentTo: 'twice@invite.test' });
    expect((await t.app.inject({ url: `/api/invitations/${token}` })).statusCode).toBe(404);
    const newToken = new URL(
      await mailbox.waitForLink('twice@invite.test', { after: mailbox.count - 1 }),
    ).pathname
      .split('/')
      .at(-1)!;
    expect(newToken).not.toBe(token);
    expect((await t.app.inject({ url: `/api/invitations/${newToken}` })).statusCode).toBe(200);
    await admin.post(`/api/users/${userId}/suspend`);
    expect((await t.app.inject({ url: `/api/invitations/${newToken}` })).statusCode).toBe(404);
  });

  it('limits how often one address may try links', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) {
      statuses.push(
        (await t.app.inject({ url: `/api/invitations/guess-${i}`, remoteAddress: '10.9.9.9' })).statusCode,
      );
    }
    expect(statuses).toContain(429);
  });
});

describe('password reset e-mail sent by an admin', () => {
  it('lets the user choose a new password once and ends their sessions', async () => {
    const created = await admin.post('/api/users', {
      firstName: 'Rex',
      lastName: 'Reset',
      localPart: 'rex',
      domain: 'invite.test',
      groupIds: [],
      credential: 'password',
      password: 'first password here',
    });
    const userId = created.body.user.id;
    const session = await signInAs(t.db, { id: userId, email: 'rex@invite.test', organizationId: org.id });
    expect((await admin.post(`/api/users/${userId}/password-link`)).body).toEqual({
      mailSent: true,
      sentTo: 'rex@invite.test',
    });
    const mail = await mailbox.waitFor('rex@invite.test', { subject: /new password/ });
    const link = /https?:\/\/\S+/.exec(mail.text)![0];
    expect(link).toMatch(/\/reset-password\//);
    const token = new URL(link).pathname.split('/').at(-1)!;
    expect((await t.app.inject({ url: `/api/invitations/${token}` })).json().purpose).toBe('reset');
    // Until the link is used, the old password still works.
    const before = await t.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(await verifyPassword(before.password_hash!, 'first password here')).toBe(true);

    expect((await accept(token, 'second password here')).statusCode).toBe(200);
    const after = await t.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(after.status).toBe('active');
    expect(await verifyPassword(after.password_hash!, 'second password here')).toBe(true);
    const me = await t.app.inject({ url: '/api/users', headers: session.headers });
    expect(me.statusCode).toBe(401);
    expect((await accept(token, 'third password here')).statusCode).toBe(410);
  });
});
