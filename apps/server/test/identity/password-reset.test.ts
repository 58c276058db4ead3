import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import {
  createOrganizationWithAdmin,
  createUser,
  signInAs,
  type TestOrganization,
} from '../support/fixtures.ts';
import { Mailbox } from '../support/mailbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TestBrowser } from './support/browser.ts';
import { discoverAs } from './support/relying-party.ts';
import { registerTestClient } from './support/clients.ts';
import { signInThroughLogin } from './support/sign-in.ts';

const OLD = 'correct horse battery staple';
const NEW = 'a brand new passphrase 42';
const REDIRECT = 'https://app.example.test/callback';

describe('forgot password', () => {
  let mailbox: Mailbox;
  let server: TestApp;
  let org: TestOrganization;
  let origin: string;

  beforeAll(async () => {
    mailbox = await Mailbox.start();
    server = await createTestApp({ env: { SMTP_URL: mailbox.url }, listen: true });
    origin = server.config.publicUrl.origin;
    org = await createOrganizationWithAdmin(server.db, { passwordHash: await hashPassword(OLD) });
  });

  afterAll(async () => {
    await server?.close();
    await mailbox?.close();
  });

  const start = (email: string) =>
    server.app.inject({ method: 'POST', url: '/api/password-reset/start', payload: { email } });
  const complete = (payload: Record<string, string>) =>
    server.app.inject({ method: 'POST', url: '/api/password-reset/complete', payload });

  it('answers the same for an unknown address and sends nothing', async () => {
    const before = mailbox.count;
    const unknown = await start('nobody-here@example.com');
    const user = await createUser(server.db, org.id, { passwordHash: await hashPassword(OLD) });
    const known = await start(user.email);
    expect(unknown.statusCode).toBe(200);
    expect(known.statusCode).toBe(200);
    expect(unknown.json().message).toBe('If an account exists for this address, we sent a code to it.');
    expect(known.json().message).toBe(unknown.json().message);
    await mailbox.waitFor(user.email, { after: before, subject: /password reset/ });
    expect(mailbox.messages.slice(before).some((m) => m.to.includes('nobody-here@example.com'))).toBe(false);
    // A code for an address without an account is simply wrong.
    const guess = await complete({ email: 'nobody-here@example.com', code: '123456', password: NEW });
    expect(guess.statusCode).toBe(400);
    expect(guess.json().error.fields.code).toBeTruthy();
  });

  it('answers a wrong code for an existing account exactly as for an unknown address', async () => {
    const user = await createUser(server.db, org.id, { passwordHash: await hashPassword(OLD) });
    const before = mailbox.count;
    await start(user.email);
    const code = await mailbox.waitForCode(user.email, { after: before, subject: /password reset/ });
    const wrongCode = code === '000000' ? '111111' : '000000';
    // From an address of its own, so these tries stay under the per-address limit of the others.
    const complete = (payload: Record<string, string>) =>
      server.app.inject({
        method: 'POST',
        url: '/api/password-reset/complete',
        payload,
        remoteAddress: '192.0.2.7',
      });
    const unknown = await complete({ email: 'nobody-at-all@example.com', code: wrongCode, password: NEW });
    const answerOf = (res: typeof unknown) => ({ status: res.statusCode, body: res.json() });
    expect(answerOf(unknown)).toEqual({
      status: 400,
      body: {
        error: {
          code: 'code_invalid',
          message: 'This code is not correct or no longer valid. Check it, or send a new code.',
          fields: { code: 'This code is not correct or no longer valid. Check it, or send a new code.' },
        },
      },
    });
    // Every wrong try, up to and past the one that kills the code, looks the same.
    for (let i = 0; i < 6; i++) {
      const known = await complete({ email: user.email, code: wrongCode, password: NEW });
      expect(answerOf(known)).toEqual(answerOf(unknown));
    }
  });

  it('sets the new password with the e-mailed code and revokes every session, grant and token', async () => {
    const user = await createUser(server.db, org.id, { passwordHash: await hashPassword(OLD) });
    // Signed in to the console and to an app (with a refresh token) before the reset.
    const browser = new TestBrowser(origin);
    await signInThroughLogin(
      browser,
      mailbox,
      '/api/sso/start',
      { email: user.email, password: OLD },
      (u) => !u.pathname.startsWith('/oidc') && !u.pathname.startsWith('/api/'),
    );
    expect((await browser.request('/api/session')).status).toBe(200);
    const registered = await registerTestClient(server.db, server.config, {
      organizationId: org.id,
      redirectUri: REDIRECT,
    });
    const rp = await discoverAs(origin, registered);
    const verifier = client.randomPKCECodeVerifier();
    const callback = await browser.follow(
      client.buildAuthorizationUrl(rp, {
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }).href,
    );
    const tokens = await client.authorizationCodeGrant(rp, new URL(callback.location!), {
      pkceCodeVerifier: verifier,
    });
    expect(tokens.refresh_token).toBeTruthy();

    const after = mailbox.count;
    await start(user.email);
    const code = await mailbox.waitForCode(user.email, { after, subject: /password reset/ });
    const common = await complete({ email: user.email, code, password: 'password123' });
    expect(common.statusCode).toBe(400);
    expect(common.json().error.fields.password).toMatch(/too common/);

    const done = await complete({ email: user.email, code, password: NEW });
    expect(done.statusCode).toBe(200);
    expect(done.json().message).toBe('Your password was changed. Sign in with your new password.');

    expect((await browser.request('/api/session')).status).toBe(401);
    await expect(client.refreshTokenGrant(rp, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // The SSO session is gone too: the next sign-in asks for the password, and only the new one works.
    const fresh = await browser.follow('/api/sso/start', (u) => u.pathname === '/login');
    const uid = new URL(fresh.location!).searchParams.get('uid');
    const old = await browser.request(`/api/interactions/${uid}/password`, {
      json: { email: user.email, password: OLD },
    });
    expect(old.status).toBe(400);
    const ok = await browser.request(`/api/interactions/${uid}/password`, {
      json: { email: user.email, password: NEW },
    });
    expect(ok.status).toBe(200);
    // The code was used up.
    expect((await complete({ email: user.email, code, password: 'yet another passphrase' })).statusCode).toBe(
      400,
    );
    // Signed in again, the user finds a notification of the reset; nobody else has one.
    const again = await signInAs(server.db, user);
    const notes = await server.app.inject({ url: '/api/notifications', headers: again.headers });
    expect(notes.json().items).toEqual([
      expect.objectContaining({ kind: 'password.changed', title: 'Your password was reset' }),
    ]);
    const others = await server.db
      .selectFrom('notifications')
      .select('user_id')
      .where('kind', '=', 'password.changed')
      .execute();
    expect(others.map((n) => n.user_id)).toEqual([user.id]);
  });
});
