import { describe, expect, it } from 'vitest';
import { createUser, signInAs } from '../support/fixtures.ts';
import { enrolAuthenticator, totpCode } from './support/authenticator.ts';
import { TestBrowser } from './support/browser.ts';
import { RP_PASSWORD, useRelyingParty } from './support/relying-party.ts';
import { uidOf } from './support/sign-in.ts';
import { pkceAuthorization } from './support/relying-party.ts';

const PASSWORD = RP_PASSWORD;
const REDIRECT = 'https://app.example.test/callback';
const BASIC = 'urn:atrium:acr:basic';
const MFA = 'urn:atrium:acr:mfa';

describe('amr and acr in the ID token, and acr_values', () => {
  const world = useRelyingParty({ redirectUri: REDIRECT });

  /**
   * Starts an authorization in `browser`; returns the /login uid (or the callback when the SSO
   * session was enough) and how to finish with tokens.
   */
  async function authorize(browser: TestBrowser, extra: Record<string, string> = {}) {
    const { url, codeGrant } = await pkceAuthorization(world.rp, {
      redirect_uri: REDIRECT,
      scope: 'openid email',
      ...extra,
    });
    const hop = await browser.follow(url.href, (u) => u.pathname === '/login' || u.href.startsWith(REDIRECT));
    return { location: hop.location!, tokensFrom: codeGrant };
  }

  async function finishAt(browser: TestBrowser, redirectTo: string): Promise<string> {
    const last = await browser.follow(redirectTo, (u) => u.href.startsWith(REDIRECT));
    return last.location!;
  }

  const post = (browser: TestBrowser, uid: string, step: string, json: unknown) =>
    browser.request(`/api/interactions/${uid}/${step}`, { json });

  it('publishes the two levels', () => {
    expect(world.rp.serverMetadata().acr_values_supported).toEqual([BASIC, MFA]);
  });

  it('says pwd + mca and the basic level for password and e-mailed code', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const browser = new TestBrowser(world.origin);
    const { location, tokensFrom } = await authorize(browser);
    const uid = uidOf(location);
    const after = world.mailbox.count;
    expect((await post(browser, uid, 'password', { email: user.email, password: PASSWORD })).status).toBe(
      200,
    );
    const code = await world.mailbox.waitForCode(user.email, { after });
    const done = await post(browser, uid, 'code', { code });
    const tokens = await tokensFrom(await finishAt(browser, JSON.parse(done.body).redirectTo));
    expect(tokens.claims()).toMatchObject({ sub: user.id, amr: ['pwd', 'mca'], acr: BASIC });
  });

  it('says pwd + otp + mfa and the strong level for password and authenticator app', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const { secret } = await enrolAuthenticator(world.server, await signInAs(world.server.db, user));
    const browser = new TestBrowser(world.origin);
    const { location, tokensFrom } = await authorize(browser);
    const uid = uidOf(location);
    await post(browser, uid, 'password', { email: user.email, password: PASSWORD });
    const done = await post(browser, uid, 'totp', { code: totpCode(secret, 1) });
    expect(done.status, done.body).toBe(200);
    const tokens = await tokensFrom(await finishAt(browser, JSON.parse(done.body).redirectTo));
    expect(tokens.claims()).toMatchObject({ sub: user.id, amr: ['pwd', 'otp', 'mfa'], acr: MFA });
  });

  it('asks a basic session to sign in again with the app when the app asks for acr mfa', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const { recoveryCodes } = await enrolAuthenticator(world.server, await signInAs(world.server.db, user));
    const browser = new TestBrowser(world.origin);

    // First a basic sign-in: the e-mailed code, chosen as "another way".
    const first = await authorize(browser);
    const firstUid = uidOf(first.location);
    const after = world.mailbox.count;
    await post(browser, firstUid, 'password', { email: user.email, password: PASSWORD });
    expect((await post(browser, firstUid, 'factor', { factor: 'email' })).status).toBe(200);
    const code = await world.mailbox.waitForCode(user.email, { after });
    const done = await post(browser, firstUid, 'code', { code });
    const basic = await first.tokensFrom(await finishAt(browser, JSON.parse(done.body).redirectTo));
    expect(basic.claims()?.acr).toBe(BASIC);

    // Without acr_values the SSO session is enough…
    const plain = await authorize(browser);
    expect(plain.location.startsWith(REDIRECT)).toBe(true);

    // …with acr_values=mfa it is not: /login again, and the e-mail is not offered.
    const strong = await authorize(browser, { acr_values: MFA });
    const uid = uidOf(strong.location);
    const pw = await post(browser, uid, 'password', { email: user.email, password: PASSWORD });
    expect(JSON.parse(pw.body)).toMatchObject({ stage: 'totp', otherWays: ['recovery'] });
    const email = await post(browser, uid, 'factor', { factor: 'email' });
    expect(email.status).toBe(400);
    expect(JSON.parse(email.body).error.code).toBe('factor_not_allowed');
    expect((await post(browser, uid, 'factor', { factor: 'recovery' })).status).toBe(200);
    const recovered = await post(browser, uid, 'recovery', { code: recoveryCodes[0] });
    expect(recovered.status, recovered.body).toBe(200);
    const tokens = await strong.tokensFrom(await finishAt(browser, JSON.parse(recovered.body).redirectTo));
    expect(tokens.claims()).toMatchObject({ amr: ['pwd', 'mfa'], acr: MFA });

    // The session is strong now: asking again passes straight through.
    const again = await authorize(browser, { acr_values: MFA });
    expect(again.location.startsWith(REDIRECT)).toBe(true);
    expect((await again.tokensFrom(again.location)).claims()?.acr).toBe(MFA);
  });
});
