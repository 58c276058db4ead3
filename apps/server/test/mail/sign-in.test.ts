import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ensureMailClient } from '../../src/modules/mail/mail-client.ts';
import { createProvider } from '../../src/oidc/provider.ts';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createUser, signInAs, type TestUser } from '../support/fixtures.ts';
import { registerTestClient } from '../identity/support/clients.ts';
import { createAppPassword } from '../support/app-passwords.ts';
import { useStarted } from '../support/use-started.ts';
import { createMailWorld, imapSignIn, inboxSubjects, sendMail } from './mail-world.ts';

describe('IMAP sign-in at Dovecot: app passwords and access tokens from Atrium’s provider', () => {
  const world = useStarted(() => createMailWorld());

  /** An app of the organisation, and an access token of `user`'s for it as the provider issues them after a sign-in. */
  async function accessTokenFor(user: TestUser, scope: string) {
    const { server } = world;
    const app = await registerTestClient(server.db, server.config, {
      organizationId: world.org.id,
      redirectUri: 'https://webmail.example.test/callback',
    });
    // Saved where the server's provider reads them.
    const provider = await createProvider(server.db, server.config);
    const client = (await provider.Client.find(app.clientId))!;
    const grant = new provider.Grant({ accountId: user.id, clientId: app.clientId });
    grant.addOIDCScope(scope);
    const grantId = await grant.save();
    const token = new provider.AccessToken({
      accountId: user.id,
      client,
      grantId,
      scope,
      gty: 'authorization_code',
    });
    return { app, accessToken: await token.save() };
  }

  /** Whether Dovecot lets these credentials in (the IMAP client's connect throws when not). */
  async function imapAccepts(auth: { user: string; pass?: string; accessToken?: string }): Promise<boolean> {
    try {
      const client = await imapSignIn(world, auth);
      await client.logout();
      return true;
    } catch (error) {
      if ((error as { authenticationFailed?: boolean }).authenticationFailed) return false;
      throw error;
    }
  }

  it('signs in with an app password, and refuses it once revoked', async () => {
    const user = await world.user();
    const { id, password, session } = await createAppPassword(world.server, user, 'Phone');
    expect(await imapAccepts({ user: user.email, pass: password }), world.mail.logs()).toBe(true);
    // Typed without the dashes and in capitals, as people do.
    expect(await imapAccepts({ user: user.email, pass: password.replaceAll('-', '').toUpperCase() })).toBe(
      true,
    );
    expect(await imapAccepts({ user: user.email, pass: 'aaaa-bbbbb-ccccc-ddddd' })).toBe(false);

    const revoked = await world.server.app.inject({
      method: 'DELETE',
      url: `/api/profile/app-passwords/${id}`,
      headers: session.headers,
    });
    expect(revoked.statusCode).toBe(204);
    expect(await imapAccepts({ user: user.email, pass: password })).toBe(false);
  });

  it('never accepts the account password, nor another user’s app password', async () => {
    const accountPassword = 'correct horse battery staple';
    const user = await createUser(world.server.db, world.org.id, {
      email: `with-password@${world.domain}`,
      passwordHash: await hashPassword(accountPassword),
    });
    expect(await imapAccepts({ user: user.email, pass: accountPassword })).toBe(false);
    const other = await world.user();
    const { password } = await createAppPassword(world.server, other, 'Phone');
    expect(await imapAccepts({ user: user.email, pass: password })).toBe(false);
    expect(await imapAccepts({ user: 'nobody@' + world.domain, pass: password })).toBe(false);
  });

  /** `AUTHENTICATE XOAUTH2` (or OAUTHBEARER) over a raw IMAP connection; the tagged answer. */
  async function xoauth2(user: string, token: string, mechanism = 'XOAUTH2'): Promise<string> {
    const socket = connect(world.mail.ports.imap, '127.0.0.1');
    const payload = Buffer.from(
      mechanism === 'OAUTHBEARER'
        ? `n,a=${user},\x01auth=Bearer ${token}\x01\x01`
        : `user=${user}\x01auth=Bearer ${token}\x01\x01`,
    ).toString('base64');
    let received = '';
    let sent = false;
    try {
      return await new Promise<string>((resolve, reject) => {
        socket.on('error', reject);
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString();
          if (!sent && received.includes('\r\n')) {
            sent = true;
            received = '';
            socket.write(`a AUTHENTICATE ${mechanism} ${payload}\r\n`);
            return;
          }
          // A refusal first sends a continuation with the error; an empty line ends the exchange.
          if (/^\+ .*\r\n$/m.test(received) && !received.includes('a ')) socket.write('\r\n');
          const tagged = /^a (OK|NO|BAD).*$/m.exec(received);
          if (tagged) resolve(tagged[0]);
        });
      });
    } finally {
      socket.destroy();
    }
  }

  it('refuses a suspended user at once, and still delivers their mail', async () => {
    // With a password of their own, so reactivating makes them active again (not invited).
    const user = await createUser(world.server.db, world.org.id, {
      email: `suspended@${world.domain}`,
      passwordHash: await hashPassword('correct horse battery staple'),
    });
    const { password } = await createAppPassword(world.server, user, 'Phone');
    expect(await imapAccepts({ user: user.email, pass: password })).toBe(true);

    const admin = await signInAs(world.server.db, world.org.admin);
    const suspended = await world.server.app.inject({
      method: 'POST',
      url: `/api/users/${user.id}/suspend`,
      headers: admin.headers,
    });
    expect(suspended.statusCode, suspended.body).toBeLessThan(300);
    expect(await imapAccepts({ user: user.email, pass: password })).toBe(false);

    await sendMail(world, { from: 'a@example.net', to: user.email, subject: 'Kept for later', text: 'x' });
    await world.mail.drainQueue();
    // Reactivated, the user makes a new app password (suspension ended the old ones) and finds it.
    const reactivated = await world.server.app.inject({
      method: 'POST',
      url: `/api/users/${user.id}/reactivate`,
      headers: admin.headers,
    });
    expect(reactivated.statusCode, reactivated.body).toBeLessThan(300);
    expect(await imapAccepts({ user: user.email, pass: password })).toBe(false);
    const fresh = await createAppPassword(world.server, user, 'New phone');
    const imap = await imapSignIn(world, { user: user.email, pass: fresh.password });
    try {
      expect(await inboxSubjects(imap), world.mail.logs()).toEqual(['Kept for later']);
    } finally {
      await imap.logout();
    }
  });

  it('signs in with an access token from Atrium’s provider (OAUTHBEARER and XOAUTH2), checked by introspection', async () => {
    const user = await world.user();
    const { server } = world;
    const { accessToken } = await accessTokenFor(user, 'openid email');

    // imapflow picks OAUTHBEARER, which Dovecot offers first; XOAUTH2 by hand.
    expect(await imapAccepts({ user: user.email, accessToken }), world.mail.logs()).toBe(true);
    expect(await xoauth2(user.email, accessToken)).toMatch(/^a OK/);
    expect(await xoauth2(user.email, 'not-a-token')).toMatch(/^a NO/);
    // The token is the user's, not anyone's who presents it.
    const other = await world.user();
    expect(await imapAccepts({ user: other.email, accessToken })).toBe(false);
    expect(await imapAccepts({ user: user.email, accessToken: 'not-a-token' })).toBe(false);

    // Suspending the user ends the token with every other sign-in.
    const admin = await signInAs(server.db, world.org.admin);
    await server.app.inject({ method: 'POST', url: `/api/users/${user.id}/suspend`, headers: admin.headers });
    expect(await imapAccepts({ user: user.email, accessToken })).toBe(false);
  });

  it('refuses for good (AUTHENTICATIONFAILED, not a temporary failure) a token without the email scope, and what is no token', async () => {
    const user = await world.user();
    const { server } = world;
    // A valid token of the user's, but issued without `email`: it names no mailbox.
    const { app, accessToken } = await accessTokenFor(user, 'openid profile');

    // `[UNAVAILABLE] Temporary authentication failure` would have the client try again for ever.
    for (const mechanism of ['XOAUTH2', 'OAUTHBEARER']) {
      for (const token of [accessToken, 'not-a-token']) {
        expect(await xoauth2(user.email, token, mechanism), world.mail.logs()).toMatch(
          /^a NO \[AUTHENTICATIONFAILED\]/,
        );
      }
    }
    // imapflow (OAUTHBEARER) sees a refused sign-in, not a server fault.
    expect(await imapAccepts({ user: user.email, accessToken })).toBe(false);

    // What each client reads at introspection: the mail server, an address matching nobody; the
    // app that holds the token, the token as it is (RFC 7662).
    const introspect = async (credentials: { clientId: string; clientSecret: string }) => {
      const response = await server.app.inject({
        method: 'POST',
        url: '/oidc/token/introspection',
        headers: {
          authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: `token=${encodeURIComponent(accessToken)}`,
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as Record<string, unknown>;
    };
    expect(await introspect(await ensureMailClient(server.db, server.config))).toEqual({
      active: false,
      email: '',
    });
    const asApp = await introspect(app);
    expect(asApp).toMatchObject({ active: true, sub: user.id, scope: 'openid profile' });
    expect(asApp).not.toHaveProperty('email');
  });

  it('lets a user submit mail with an app password, only from their own address', async () => {
    const user = await world.user();
    const to = await world.user();
    const { password } = await createAppPassword(world.server, user, 'Phone');
    await sendMail(
      world,
      { from: user.email, to: to.email, subject: 'Sent by me', text: 'x' },
      {
        user: user.email,
        pass: password,
      },
    );
    const forged = await sendMail(
      world,
      { from: to.email, to: user.email, subject: 'Forged', text: 'x' },
      {
        user: user.email,
        pass: password,
      },
    ).catch((error: { responseCode?: number; response?: string }) => error);
    expect(forged?.responseCode, world.mail.logs()).toBe(553);
    expect(forged?.response).toMatch(/not owned by user/i);
    const wrong = await sendMail(
      world,
      { from: user.email, to: to.email, subject: 'No', text: 'x' },
      {
        user: user.email,
        pass: 'aaaa-bbbbb-ccccc-ddddd',
      },
    ).catch((error: { responseCode?: number }) => error);
    expect(wrong?.responseCode).toBe(535);

    await world.mail.drainQueue();
    const imap = await imapSignIn(world, {
      user: to.email,
      pass: (await createAppPassword(world.server, to, 'Phone')).password,
    });
    try {
      expect(await inboxSubjects(imap), world.mail.logs()).toEqual(['Sent by me']);
    } finally {
      await imap.logout();
    }
  });
});
