import { describe, expect, it } from 'vitest';
import { createUser, signInAs, type TestUser } from '../support/fixtures.ts';
import { enrolAuthenticator, totpCode } from './support/authenticator.ts';
import { resetPasswordWithMailedCode } from './support/email-codes.ts';
import { TestBrowser } from './support/browser.ts';
import { RP_PASSWORD, useRelyingParty } from './support/relying-party.ts';
import { uidOf } from './support/sign-in.ts';
import { pkceAuthorization } from './support/relying-party.ts';

const PASSWORD = RP_PASSWORD;
const NEW_PASSWORD = 'a quite different passphrase 42';
const REDIRECT = 'https://app.example.test/callback';
const BASIC = 'urn:atrium:acr:basic';
const MFA = 'urn:atrium:acr:mfa';

describe('trusted browsers', () => {
  const world = useRelyingParty({ redirectUri: REDIRECT });

  /** An app's authorization in `browser`, up to /login; `tokensFrom` finishes it. */
  async function authorize(browser: TestBrowser, extra: Record<string, string> = {}) {
    const { url, codeGrant } = await pkceAuthorization(world.rp, {
      redirect_uri: REDIRECT,
      scope: 'openid email',
      prompt: 'login',
      ...extra,
    });
    const uid = uidOf((await browser.follow(url.href, (u) => u.pathname === '/login')).location);
    const post = (step: string, json: unknown) =>
      browser.request(`/api/interactions/${uid}/${step}`, { json });
    const tokensFrom = async (redirectTo: string) => {
      const last = await browser.follow(redirectTo, (u) => u.href.startsWith(REDIRECT));
      return codeGrant(last.location!);
    };
    return { uid, post, tokensFrom };
  }

  /** A member with an authenticator app, and a browser that trusted itself at a sign-in with it. */
  async function trustedMember() {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const { secret, recoveryCodes } = await enrolAuthenticator(
      world.server,
      await signInAs(world.server.db, user),
    );
    const browser = new TestBrowser(world.origin);
    const first = await authorize(browser);
    const password = await first.post('password', { email: user.email, password: PASSWORD });
    expect(JSON.parse(password.body)).toMatchObject({ stage: 'totp', canTrustBrowser: true });
    const done = await first.post('totp', { code: totpCode(secret, 1), trustBrowser: true });
    expect(done.status, done.body).toBe(200);
    await first.tokensFrom(JSON.parse(done.body).redirectTo);
    return { user, secret, recoveryCodes, browser };
  }

  /** The password step from `browser`: its answer's stage, and how to finish. */
  async function passwordFrom(browser: TestBrowser, user: TestUser, password = PASSWORD, extra = {}) {
    const sign = await authorize(browser, extra);
    const res = await sign.post('password', { email: user.email, password });
    expect(res.status, res.body).toBe(200);
    return { ...sign, state: JSON.parse(res.body) as { stage: string; redirectTo?: string } };
  }

  const profile = async (user: TestUser) => {
    const session = await signInAs(world.server.db, user);
    return {
      list: async () =>
        (
          await world.server.app.inject({
            method: 'GET',
            url: '/api/profile/trusted-browsers',
            headers: session.headers,
          })
        ).json() as { browsers: { id: string; browser: string; lastUsedAt: string | null }[] },
      remove: (id?: string) =>
        world.server.app.inject({
          method: 'DELETE',
          url: `/api/profile/trusted-browsers${id ? `/${id}` : ''}`,
          headers: session.headers,
        }),
      session,
    };
  };

  it('skips the second factor on the trusted browser only, says so in amr, and lists it on /profile', async () => {
    const { user, browser } = await trustedMember();
    const trusted = await passwordFrom(browser, user);
    expect(trusted.state.stage).toBe('continue');
    const tokens = await trusted.tokensFrom(trusted.state.redirectTo!);
    expect(tokens.claims()).toMatchObject({ sub: user.id, amr: ['pwd'], acr: BASIC });

    // Another browser is asked for the app.
    expect((await passwordFrom(new TestBrowser(world.origin), user)).state.stage).toBe('totp');
    const { browsers } = await (await profile(user)).list();
    expect(browsers).toHaveLength(1);
    expect(browsers[0]!.lastUsedAt).not.toBeNull();
  });

  it('still asks for the second factor when the app asks for a strong sign-in', async () => {
    const { user, browser } = await trustedMember();
    expect((await passwordFrom(browser, user, PASSWORD, { acr_values: MFA })).state.stage).toBe('totp');
  });

  it('forgets the browser once removed on /profile, and all of them with "remove all"', async () => {
    const { user, browser } = await trustedMember();
    const own = await profile(user);
    const [one] = (await own.list()).browsers;
    expect((await own.remove(one!.id)).statusCode).toBe(204);
    expect((await own.remove(one!.id)).statusCode).toBe(404);
    expect((await passwordFrom(browser, user)).state.stage).toBe('totp');

    const again = await trustedMember();
    const theirs = await profile(again.user);
    expect((await theirs.remove()).statusCode).toBe(204);
    expect((await theirs.list()).browsers).toEqual([]);
    expect((await passwordFrom(again.browser, again.user)).state.stage).toBe('totp');
  });

  it('forgets every trusted browser when the password changes', async () => {
    const { user, browser } = await trustedMember();
    const { session } = await profile(user);
    const changed = await world.server.app.inject({
      method: 'POST',
      url: '/api/profile/password',
      headers: session.headers,
      payload: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await passwordFrom(browser, user, NEW_PASSWORD)).state.stage).toBe('totp');
  });

  it('forgets every trusted browser when the password is reset with an e-mailed code', async () => {
    const { user, browser } = await trustedMember();
    const { done: reset } = await resetPasswordWithMailedCode(world, user.email, NEW_PASSWORD);
    expect(reset.statusCode, reset.body).toBe(200);
    expect((await passwordFrom(browser, user, NEW_PASSWORD)).state.stage).toBe('totp');
  });

  it('is neither offered nor honoured when the policy forbids it', async () => {
    const { user, browser, recoveryCodes } = await trustedMember();
    const admin = await signInAs(world.server.db, world.org.admin);
    const put = (trustedBrowsersAllowed: boolean) =>
      world.server.app.inject({
        method: 'PUT',
        url: '/api/organization/sign-in-policy',
        headers: admin.headers,
        payload: { strongFactorRequired: 'nobody', emailCodeAllowed: true, trustedBrowsersAllowed },
      });
    expect((await put(false)).statusCode).toBe(200);
    try {
      const asked = await passwordFrom(browser, user);
      expect(asked.state).toMatchObject({ stage: 'totp', canTrustBrowser: false });
      // Ticking it anyway trusts nothing.
      const other = new TestBrowser(world.origin);
      const sign = await passwordFrom(other, user);
      await sign.post('factor', { factor: 'recovery' });
      const done = await sign.post('recovery', { code: recoveryCodes[0], trustBrowser: true });
      expect(done.status, done.body).toBe(200);
      expect((await (await profile(user)).list()).browsers).toHaveLength(1);
    } finally {
      expect((await put(true)).statusCode).toBe(200);
    }
  });
});
