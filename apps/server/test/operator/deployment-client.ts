import type * as client from 'openid-client';
import { expect } from 'vitest';
import type { TestSession } from '../support/fixtures.ts';
import type { Mailbox } from '../support/mailbox.ts';
import { totpCode } from '../identity/support/authenticator.ts';
import { TestBrowser } from '../identity/support/browser.ts';
import { SoftPasskey } from '../identity/support/passkey.ts';
import { discoverAs, pkceAuthorization } from '../identity/support/relying-party.ts';
import { uidOf } from '../identity/support/sign-in.ts';

/**
 * What people and apps do with a deployment over HTTP, as the console and a registered app do:
 * the backup drill uses it before the backup and again after the restore, against the server
 * process an init script started.
 */
export class DeploymentClient {
  readonly origin: string;

  constructor(origin: string) {
    this.origin = origin;
  }

  async api(session: TestSession, method: string, url: string, body?: unknown) {
    const response = await fetch(`${this.origin}${url}`, {
      method,
      headers: { ...session.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text, json: () => JSON.parse(text) as Record<string, unknown> };
  }

  /** An authenticator app set up on /profile: its secret (the confirming code is this time step's). */
  async enrolAuthenticator(session: TestSession): Promise<string> {
    const started = await this.api(session, 'POST', '/api/profile/authenticator');
    expect(started.status, started.body).toBe(200);
    const secret = String(started.json().secret);
    const confirmed = await this.api(session, 'POST', '/api/profile/authenticator/confirm', {
      code: totpCode(secret),
    });
    expect(confirmed.status, confirmed.body).toBe(200);
    return secret;
  }

  /** A passkey registered on /profile (after the current password), held by the test. */
  async registerPasskey(session: TestSession, currentPassword: string): Promise<SoftPasskey> {
    const passkey = new SoftPasskey({ rpID: new URL(this.origin).hostname, origin: this.origin });
    const started = await this.api(session, 'POST', '/api/profile/passkeys/options', { currentPassword });
    expect(started.status, started.body).toBe(200);
    const { options } = started.json() as { options: { challenge: string; user: { id: string } } };
    const done = await this.api(session, 'POST', '/api/profile/passkeys', {
      name: 'Laptop',
      response: passkey.register(options),
    });
    expect(done.status, done.body).toBe(200);
    return passkey;
  }

  /** An app's view of the provider, as the registered client. */
  app(registered: { clientId: string; clientSecret: string }): Promise<client.Configuration> {
    return discoverAs(this.origin, registered);
  }

  /**
   * A sign-in to the app ending in its tokens: `steps` answers the /login page (password, then a
   * code or a passkey) and returns the interaction's last answer, which names where to go next.
   */
  async signInToApp(
    rp: client.Configuration,
    redirectUri: string,
    steps: (
      post: (step: string, json: unknown) => Promise<{ status: number; body: string }>,
    ) => Promise<string>,
  ): Promise<AppTokens> {
    const browser = new TestBrowser(this.origin);
    const { url, codeGrant } = await pkceAuthorization(rp, {
      redirect_uri: redirectUri,
      scope: 'openid email',
    });
    const hop = await browser.follow(url.href, (u) => u.pathname === '/login');
    const uid = uidOf(hop.location);
    const redirectTo = await steps((step, json) =>
      browser.request(`/api/interactions/${uid}/${step}`, { json }),
    );
    const last = await browser.follow(redirectTo, (u) => u.href.startsWith(redirectUri));
    return codeGrant(last.location!);
  }

  /** Password, then the authenticator app's code for time step `step` (a step not used before). */
  signInWithAuthenticator(
    rp: client.Configuration,
    redirectUri: string,
    user: { email: string; password: string; secret: string },
    step: number,
  ) {
    return this.signInToApp(rp, redirectUri, async (post) => {
      const password = await post('password', { email: user.email, password: user.password });
      expect(password.status, password.body).toBe(200);
      expect(JSON.parse(password.body)).toMatchObject({ stage: 'totp' });
      // The server takes the code of its own step or one either side: a step further ahead (a
      // drill that reached this within 30 s of the last code) waits for the clock to catch up.
      while (step - Math.floor(Date.now() / 30_000) > 1) await new Promise((r) => setTimeout(r, 500));
      const code = totpCode(user.secret, step - Math.floor(Date.now() / 30_000));
      const done = await post('totp', { code });
      expect(done.status, done.body).toBe(200);
      return String(JSON.parse(done.body).redirectTo);
    });
  }

  /** The passkey alone, without the password (the /login page's passkey button). */
  signInWithPasskey(rp: client.Configuration, redirectUri: string, passkey: SoftPasskey) {
    return this.signInToApp(rp, redirectUri, async (post) => {
      const started = await post('passkey/options', {});
      expect(started.status, started.body).toBe(200);
      const { options } = JSON.parse(started.body) as { options: { challenge: string } };
      const done = await post('passkey', { response: passkey.authenticate(options) });
      expect(done.status, done.body).toBe(200);
      return String(JSON.parse(done.body).redirectTo);
    });
  }

  /** Password, then the code the deployment e-mails to `mailbox`. */
  signInWithEmailedCode(
    rp: client.Configuration,
    redirectUri: string,
    mailbox: Mailbox,
    user: { email: string; password: string },
  ) {
    return this.signInToApp(rp, redirectUri, async (post) => {
      const after = mailbox.count;
      const password = await post('password', user);
      expect(password.status, password.body).toBe(200);
      expect(JSON.parse(password.body)).toMatchObject({ stage: 'code' });
      const done = await post('code', { code: await mailbox.waitForCode(user.email, { after }) });
      expect(done.status, done.body).toBe(200);
      return String(JSON.parse(done.body).redirectTo);
    });
  }
}

/** An app's tokens, with openid-client's helpers (claims() of the ID token). */
export type AppTokens = Awaited<ReturnType<typeof client.authorizationCodeGrant>>;

/** The current TOTP time step: a sign-in after a restore waits for one not used before it. */
export const timeStep = () => Math.floor(Date.now() / 30_000);
