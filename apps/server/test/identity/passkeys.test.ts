import { beforeAll, describe, expect, it } from 'vitest';
import { createUser, signInAs, type TestSession } from '../support/fixtures.ts';
import { enrolAuthenticator, totpCode } from './support/authenticator.ts';
import { TestBrowser } from './support/browser.ts';
import { RP_PASSWORD, useRelyingParty } from './support/relying-party.ts';
import { SoftPasskey } from './support/passkey.ts';
import { uidOf } from './support/sign-in.ts';
import { pkceAuthorization } from './support/relying-party.ts';

const PASSWORD = RP_PASSWORD;
const REDIRECT = 'https://app.example.test/callback';
const MFA = 'urn:atrium:acr:mfa';

type Options = { challenge: string; user: { id: string }; allowCredentials?: { id: string }[] };

describe('passkeys: on /profile, and signing in with one alone or after the password', () => {
  const world = useRelyingParty({ redirectUri: REDIRECT });
  let rpID: string;

  beforeAll(async () => {
    rpID = world.server.config.publicUrl.hostname;
  });

  // Each member calls from an address of their own: /profile's per-address limits stay out of the way.
  const addresses = new Map<TestSession, string>();
  const call = (session: TestSession, method: 'GET' | 'POST', url: string, payload?: unknown) =>
    world.server.app.inject({
      method,
      url,
      headers: session.headers,
      remoteAddress: addresses.get(session),
      ...(payload ? { payload } : {}),
    });

  async function newMember() {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const session = await signInAs(world.server.db, user);
    addresses.set(session, `10.0.${addresses.size >> 8}.${addresses.size & 255}`);
    return { user, session };
  }

  /** Registers `passkey` on /profile through the API, as the console does. */
  async function register(session: TestSession, passkey: SoftPasskey, name = 'Laptop') {
    const started = await call(session, 'POST', '/api/profile/passkeys/options', {
      currentPassword: PASSWORD,
    });
    expect(started.statusCode, started.body).toBe(200);
    const { options } = started.json() as { options: Options };
    return call(session, 'POST', '/api/profile/passkeys', { name, response: passkey.register(options) });
  }

  async function authorize(browser: TestBrowser, extra: Record<string, string> = {}) {
    const { url, codeGrant } = await pkceAuthorization(world.rp, {
      redirect_uri: REDIRECT,
      scope: 'openid email',
      ...extra,
    });
    const hop = await browser.follow(url.href, (u) => u.pathname === '/login');
    const tokensFrom = async (redirectTo: string) => {
      const last = await browser.follow(redirectTo, (u) => u.href.startsWith(REDIRECT));
      return codeGrant(last.location!);
    };
    return { uid: uidOf(hop.location), tokensFrom };
  }

  const post = (browser: TestBrowser, uid: string, step: string, json: unknown = {}) =>
    browser.request(`/api/interactions/${uid}/${step}`, { json });

  async function signInOptions(browser: TestBrowser, uid: string): Promise<Options> {
    const hop = await post(browser, uid, 'passkey/options');
    expect(hop.status, hop.body).toBe(200);
    return (JSON.parse(hop.body) as { options: Options }).options;
  }

  it('registers named passkeys after the password; the first brings ten recovery codes', async () => {
    const { user, session } = await newMember();
    const wrong = await call(session, 'POST', '/api/profile/passkeys/options', { currentPassword: 'no' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.fields.currentPassword).toBe('Your current password is not correct');

    const first = await register(session, new SoftPasskey({ rpID, origin: world.origin }), 'Laptop');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().recoveryCodes).toHaveLength(10);
    const second = await register(
      session,
      new SoftPasskey({ rpID, origin: world.origin, synced: true }),
      'Phone',
    );
    expect(second.json()).toEqual({ recoveryCodes: null });

    const list = (await call(session, 'GET', '/api/profile/passkeys')).json();
    expect(list.recoveryCodesLeft).toBe(10);
    expect(list.passkeys).toMatchObject([
      { name: 'Laptop', synced: false, lastUsedAt: null },
      { name: 'Phone', synced: true, lastUsedAt: null },
    ]);
    const activity = await world.server.db
      .selectFrom('activity_log')
      .select('action')
      .where('actor_user_id', '=', user.id)
      .execute();
    expect(activity.filter((a) => a.action === 'user.passkey_added')).toHaveLength(2);
    const notice = await world.mailbox.waitFor(user.email, { subject: /A passkey was added/ });
    expect(notice.text).toContain('A passkey was added');
  });

  it('keeps the recovery codes while a strong factor remains, and makes new ones for a passkey alone', async () => {
    const { session } = await newMember();
    await enrolAuthenticator(world.server, session);
    const added = await register(session, new SoftPasskey({ rpID, origin: world.origin }));
    // The app brought the codes already: the passkey brings none.
    expect(added.json()).toEqual({ recoveryCodes: null });
    expect((await call(session, 'GET', '/api/profile/passkeys')).json().recoveryCodesLeft).toBeNull();
    const removed = await call(session, 'POST', '/api/profile/authenticator/remove', {
      currentPassword: PASSWORD,
    });
    expect(removed.statusCode).toBe(204);
    expect((await call(session, 'GET', '/api/profile/passkeys')).json().recoveryCodesLeft).toBe(10);
    const renewed = await call(session, 'POST', '/api/profile/recovery-codes', { currentPassword: PASSWORD });
    expect(renewed.statusCode, renewed.body).toBe(200);
    expect(renewed.json().recoveryCodes).toHaveLength(10);
  });

  // Issue 30 item 11: an authenticator app set up after a passkey made new codes, so they were
  // shown a second time and the ones the passkey brought stopped working.
  it('keeps the codes a passkey brought when an authenticator app is set up after it', async () => {
    const { user, session } = await newMember();
    const added = await register(session, new SoftPasskey({ rpID, origin: world.origin }));
    expect((added.json() as { recoveryCodes: string[] }).recoveryCodes).toHaveLength(10);
    const codeRows = () =>
      world.server.db
        .selectFrom('recovery_codes')
        .select('id')
        .where('user_id', '=', user.id)
        .orderBy('id')
        .execute();
    const before = await codeRows();
    const started = await call(session, 'POST', '/api/profile/authenticator');
    const { secret } = started.json() as { secret: string };
    const confirmed = await call(session, 'POST', '/api/profile/authenticator/confirm', {
      code: totpCode(secret),
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    // Nothing to show again, and the codes the person saved are the ones that still work.
    expect(confirmed.json()).toEqual({ recoveryCodes: null });
    expect(await codeRows()).toEqual(before);
    expect((await call(session, 'GET', '/api/profile/authenticator')).json()).toMatchObject({
      recoveryCodesLeft: 10,
    });
  });

  it('refuses a registration challenge used twice, from another session, or from another origin', async () => {
    const { session } = await newMember();
    const started = await call(session, 'POST', '/api/profile/passkeys/options', {
      currentPassword: PASSWORD,
    });
    const { options } = started.json() as { options: Options };
    const passkey = new SoftPasskey({ rpID, origin: world.origin });
    const elsewhere = await call(session, 'POST', '/api/profile/passkeys', {
      name: 'Evil',
      response: passkey.register(options, 'https://evil.example.test'),
    });
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json().error.code).toBe('passkey_not_registered');
    // The challenge went with that first answer.
    const again = await call(session, 'POST', '/api/profile/passkeys', {
      name: 'Laptop',
      response: passkey.register(options),
    });
    expect(again.statusCode).toBe(400);

    const other = await signInAs(world.server.db, (await newMember()).user);
    const fresh = (
      await call(session, 'POST', '/api/profile/passkeys/options', { currentPassword: PASSWORD })
    ).json() as { options: Options };
    const stolen = await call(other, 'POST', '/api/profile/passkeys', {
      name: 'Laptop',
      response: passkey.register(fresh.options),
    });
    expect(stolen.statusCode).toBe(400);
  });

  it('signs in with the passkey alone: amr hwk + mfa, or swk for a synced one, and acr mfa', async () => {
    for (const synced of [false, true]) {
      const { user, session } = await newMember();
      const passkey = new SoftPasskey({ rpID, origin: world.origin, synced });
      expect((await register(session, passkey)).statusCode).toBe(200);

      const browser = new TestBrowser(world.origin);
      const { uid, tokensFrom } = await authorize(browser);
      const options = await signInOptions(browser, uid);
      // Before the password the options name no account (conditional UI, no enumeration).
      expect(options.allowCredentials ?? []).toEqual([]);
      const done = await post(browser, uid, 'passkey', { response: passkey.authenticate(options) });
      expect(done.status, done.body).toBe(200);
      const tokens = await tokensFrom(JSON.parse(done.body).redirectTo);
      expect(tokens.claims()).toMatchObject({
        sub: user.id,
        amr: [synced ? 'swk' : 'hwk', 'mfa'],
        acr: MFA,
      });
      const list = (await call(session, 'GET', '/api/profile/passkeys')).json();
      expect(list.passkeys[0].lastUsedAt).not.toBeNull();
    }
  });

  it('asks for the passkey after the password, with the other ways, and says pwd + hwk + mfa', async () => {
    const { user, session } = await newMember();
    const passkey = new SoftPasskey({ rpID, origin: world.origin });
    await register(session, passkey);
    const browser = new TestBrowser(world.origin);
    const { uid, tokensFrom } = await authorize(browser, { acr_values: MFA });
    const pw = await post(browser, uid, 'password', { email: user.email, password: PASSWORD });
    expect(JSON.parse(pw.body)).toMatchObject({ stage: 'passkey', otherWays: ['recovery'] });
    const options = await signInOptions(browser, uid);
    expect(options.allowCredentials?.map((c) => c.id)).toEqual([passkey.credentialId]);

    // Another account's passkey does not finish this one's sign-in.
    const { session: otherSession } = await newMember();
    const stranger = new SoftPasskey({ rpID, origin: world.origin });
    await register(otherSession, stranger);
    const wrong = await post(browser, uid, 'passkey', { response: stranger.authenticate(options) });
    expect(wrong.status).toBe(400);

    const fresh = await signInOptions(browser, uid);
    const done = await post(browser, uid, 'passkey', { response: passkey.authenticate(fresh) });
    expect(done.status, done.body).toBe(200);
    const tokens = await tokensFrom(JSON.parse(done.body).redirectTo);
    expect(tokens.claims()).toMatchObject({ sub: user.id, amr: ['pwd', 'hwk', 'mfa'], acr: MFA });
  });

  it('trusts the browser after the password and the passkey when asked, and never after the passkey alone', async () => {
    const { user, session } = await newMember();
    const passkey = new SoftPasskey({ rpID, origin: world.origin });
    await register(session, passkey);
    const browser = new TestBrowser(world.origin);
    const first = await authorize(browser);
    const pw = await post(browser, first.uid, 'password', { email: user.email, password: PASSWORD });
    expect(JSON.parse(pw.body)).toMatchObject({ stage: 'passkey', canTrustBrowser: true });
    const options = await signInOptions(browser, first.uid);
    const done = await post(browser, first.uid, 'passkey', {
      response: passkey.authenticate(options),
      trustBrowser: true,
    });
    expect(done.status, done.body).toBe(200);
    await first.tokensFrom(JSON.parse(done.body).redirectTo);

    // The same browser, another sign-in: the password alone, and amr says so.
    const again = await authorize(browser, { prompt: 'login' });
    const skipped = await post(browser, again.uid, 'password', { email: user.email, password: PASSWORD });
    expect(JSON.parse(skipped.body)).toMatchObject({ stage: 'continue' });
    const tokens = await again.tokensFrom(JSON.parse(skipped.body).redirectTo);
    expect(tokens.claims()).toMatchObject({ sub: user.id, amr: ['pwd'] });

    // A passkey alone skips no second factor, so it trusts nothing.
    const { user: other, session: otherSession } = await newMember();
    const otherKey = new SoftPasskey({ rpID, origin: world.origin });
    await register(otherSession, otherKey);
    const elsewhere = new TestBrowser(world.origin);
    const alone = await authorize(elsewhere);
    const aloneDone = await post(elsewhere, alone.uid, 'passkey', {
      response: otherKey.authenticate(await signInOptions(elsewhere, alone.uid)),
      trustBrowser: true,
    });
    expect(aloneDone.status, aloneDone.body).toBe(200);
    await alone.tokensFrom(JSON.parse(aloneDone.body).redirectTo);
    const next = await authorize(elsewhere, { prompt: 'login' });
    const asked = await post(elsewhere, next.uid, 'password', { email: other.email, password: PASSWORD });
    expect(JSON.parse(asked.body)).toMatchObject({ stage: 'passkey' });
  });

  it('offers the passkey first, then the authenticator app, to a user with both', async () => {
    const { user, session } = await newMember();
    await enrolAuthenticator(world.server, session);
    await register(session, new SoftPasskey({ rpID, origin: world.origin }));
    const browser = new TestBrowser(world.origin);
    const { uid } = await authorize(browser);
    const pw = await post(browser, uid, 'password', { email: user.email, password: PASSWORD });
    expect(JSON.parse(pw.body)).toMatchObject({
      stage: 'passkey',
      otherWays: ['totp', 'email', 'recovery'],
    });
    const chosen = await post(browser, uid, 'factor', { factor: 'totp' });
    expect(JSON.parse(chosen.body)).toMatchObject({
      stage: 'totp',
      otherWays: ['passkey', 'email', 'recovery'],
    });
  });

  it('refuses a sign-in challenge used twice, another origin, an old counter, and missing user verification', async () => {
    const { session } = await newMember();
    const passkey = new SoftPasskey({ rpID, origin: world.origin });
    await register(session, passkey);
    const browser = new TestBrowser(world.origin);
    const { uid } = await authorize(browser);

    const options = await signInOptions(browser, uid);
    const elsewhere = await post(browser, uid, 'passkey', {
      response: passkey.authenticate(options, { origin: 'https://evil.example.test' }),
    });
    expect(elsewhere.status).toBe(400);
    expect(JSON.parse(elsewhere.body).error.code).toBe('passkey_failed');
    const replayed = await post(browser, uid, 'passkey', { response: passkey.authenticate(options) });
    expect(replayed.status).toBe(400);

    const unverified = await post(browser, uid, 'passkey', {
      response: passkey.authenticate(await signInOptions(browser, uid), { userVerified: false }),
    });
    expect(unverified.status).toBe(400);

    const ok = await post(browser, uid, 'passkey', {
      response: passkey.authenticate(await signInOptions(browser, uid), { counter: 10 }),
    });
    expect(ok.status, ok.body).toBe(200);

    // A clone that still counts from before: refused.
    const next = new TestBrowser(world.origin);
    const second = await authorize(next);
    const cloned = await post(next, second.uid, 'passkey', {
      response: passkey.authenticate(await signInOptions(next, second.uid), { counter: 5 }),
    });
    expect(cloned.status).toBe(400);
  });

  it('meets the account’s throttling: a failed passkey counts, and a locked account is refused', async () => {
    const { user, session } = await newMember();
    const passkey = new SoftPasskey({ rpID, origin: world.origin });
    await register(session, passkey);
    const browser = new TestBrowser(world.origin);
    const { uid } = await authorize(browser);
    const before = await world.server.db
      .selectFrom('sign_in_failures')
      .select('ip')
      .where('identifier', '=', user.email)
      .execute();
    const wrong = await post(browser, uid, 'passkey', {
      response: passkey.authenticate(await signInOptions(browser, uid), { userVerified: false }),
    });
    expect(wrong.status).toBe(400);
    const after = await world.server.db
      .selectFrom('sign_in_failures')
      .select('ip')
      .where('identifier', '=', user.email)
      .execute();
    expect(after).toHaveLength(before.length + 1);

    // A hundred failures from this address lock the account here, for a passkey too.
    await world.server.db
      .insertInto('sign_in_failures')
      .values(Array.from({ length: 100 }, () => ({ identifier: user.email, ip: after[0]!.ip })))
      .execute();
    const locked = await post(browser, uid, 'passkey', {
      response: passkey.authenticate(await signInOptions(browser, uid)),
    });
    expect(locked.status).toBe(429);
    expect(JSON.parse(locked.body).error.code).toBe('sign_in_locked');
  });

  it('refuses a removed passkey and one of a suspended account; removing asks for the password', async () => {
    const { user, session } = await newMember();
    const passkey = new SoftPasskey({ rpID, origin: world.origin });
    await register(session, passkey);
    const [row] = (await call(session, 'GET', '/api/profile/passkeys')).json().passkeys;

    await world.server.db
      .updateTable('users')
      .set({ status: 'suspended' })
      .where('id', '=', user.id)
      .execute();
    const browser = new TestBrowser(world.origin);
    const { uid } = await authorize(browser);
    const suspended = await post(browser, uid, 'passkey', {
      response: passkey.authenticate(await signInOptions(browser, uid)),
    });
    expect(suspended.status).toBe(403);
    await world.server.db.updateTable('users').set({ status: 'active' }).where('id', '=', user.id).execute();

    const noPassword = await call(session, 'POST', `/api/profile/passkeys/${row.id}/remove`, {
      currentPassword: 'no',
    });
    expect(noPassword.statusCode).toBe(400);
    const removed = await call(session, 'POST', `/api/profile/passkeys/${row.id}/remove`, {
      currentPassword: PASSWORD,
    });
    expect(removed.statusCode).toBe(204);
    expect((await call(session, 'GET', '/api/profile/passkeys')).json()).toEqual({
      passkeys: [],
      recoveryCodesLeft: null,
    });

    const later = new TestBrowser(world.origin);
    const again = await authorize(later);
    const refused = await post(later, again.uid, 'passkey', {
      response: passkey.authenticate(await signInOptions(later, again.uid)),
    });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).error.code).toBe('passkey_failed');
    // Without a strong factor, the password leads to the e-mailed code again.
    const pw = await post(later, again.uid, 'password', { email: user.email, password: PASSWORD });
    expect(JSON.parse(pw.body).stage).toBe('code');
  });
});
