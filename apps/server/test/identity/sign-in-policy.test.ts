import { describe, expect, it } from 'vitest';
import {
  createOrganizationWithAdmin,
  createUser,
  signInAs,
  type TestOrganization,
  type TestUser,
} from '../support/fixtures.ts';
import { enrolAuthenticator, totpCode } from './support/authenticator.ts';
import { TestBrowser } from './support/browser.ts';
import { discoverAs } from './support/relying-party.ts';
import { registerTestClient } from './support/clients.ts';
import { uidOf } from './support/sign-in.ts';
import {
  followTicketToLogin,
  pastPassword,
  useSignInWorld,
  WORLD_PASSWORD,
} from './support/sign-in-world.ts';
import { pkceAuthorization } from './support/relying-party.ts';

const REDIRECT = 'https://app.example.test/callback';
const MFA = 'urn:atrium:acr:mfa';
const RESET_MAIL = /^An administrator reset how you sign in to Atrium$/;

type Policy = {
  strongFactorRequired: 'nobody' | 'admins' | 'everyone';
  emailCodeAllowed: boolean;
  trustedBrowsersAllowed: boolean;
};
const DEFAULTS: Policy = {
  strongFactorRequired: 'nobody',
  emailCodeAllowed: true,
  trustedBrowsersAllowed: true,
};

describe('the organisation’s sign-in policy, forced enrolment and the admin’s factor reset', () => {
  const world = useSignInWorld();

  const inject = async (
    user: TestUser,
    method: 'GET' | 'PUT' | 'POST',
    url: string,
    payload?: Record<string, unknown>,
  ) => {
    const session = await signInAs(world.server.db, user);
    return world.server.app.inject({
      method,
      url,
      headers: session.headers,
      ...(payload ? { payload } : {}),
    });
  };

  /** An organisation with this policy, set by its admin through the API. */
  async function orgWithPolicy(policy: Partial<Policy> = {}): Promise<TestOrganization> {
    const org = await createOrganizationWithAdmin(world.server.db, { passwordHash: world.passwordHash });
    const res = await inject(org.admin, 'PUT', '/api/organization/sign-in-policy', {
      ...DEFAULTS,
      ...policy,
    });
    expect(res.statusCode, res.body).toBe(200);
    return org;
  }

  const stateOf = async (browser: TestBrowser, uid: string) =>
    JSON.parse((await browser.request(`/api/interactions/${uid}/state`)).body) as Record<string, unknown>;

  it('lets only admins read and change the policy, defaults to today’s behaviour, and logs changes', async () => {
    const org = await createOrganizationWithAdmin(world.server.db, { passwordHash: world.passwordHash });
    const member = await createUser(world.server.db, org.id, { passwordHash: world.passwordHash });
    expect((await inject(member, 'GET', '/api/organization/sign-in-policy')).statusCode).toBe(403);
    const refused = await inject(member, 'PUT', '/api/organization/sign-in-policy', {
      ...DEFAULTS,
      strongFactorRequired: 'everyone',
    });
    expect(refused.statusCode).toBe(403);

    const read = await inject(org.admin, 'GET', '/api/organization/sign-in-policy');
    expect(read.json()).toEqual(DEFAULTS);
    const changed = {
      strongFactorRequired: 'admins',
      emailCodeAllowed: false,
      trustedBrowsersAllowed: false,
    };
    const saved = await inject(org.admin, 'PUT', '/api/organization/sign-in-policy', changed);
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await inject(org.admin, 'GET', '/api/organization/sign-in-policy')).json()).toEqual(changed);
    const bad = await inject(org.admin, 'PUT', '/api/organization/sign-in-policy', {
      ...changed,
      strongFactorRequired: 'some',
    });
    expect(bad.statusCode).toBe(400);

    const logged = await world.server.db
      .selectFrom('activity_log')
      .select('action')
      .where('organization_id', '=', org.id)
      .where('action', '=', 'organization.sign_in_policy_updated')
      .execute();
    expect(logged).toHaveLength(1);
    // Another organisation keeps its own (default) policy.
    const other = await createOrganizationWithAdmin(world.server.db, { passwordHash: world.passwordHash });
    expect((await inject(other.admin, 'GET', '/api/organization/sign-in-policy')).json()).toEqual(DEFAULTS);
  });

  it('takes a user who must have a strong factor through enrolment after the code; the ID token says so', async () => {
    const org = await orgWithPolicy({ strongFactorRequired: 'everyone' });
    const user = await createUser(world.server.db, org.id, { passwordHash: world.passwordHash });
    const registered = await registerTestClient(world.server.db, world.server.config, {
      organizationId: org.id,
      redirectUri: REDIRECT,
    });
    const rp = await discoverAs(world.origin, registered);
    const { url, codeGrant } = await pkceAuthorization(rp, { redirect_uri: REDIRECT, scope: 'openid email' });
    const browser = new TestBrowser(world.origin);
    const uid = uidOf((await browser.follow(url.href, (u) => u.pathname === '/login')).location);
    const post = (step: string, json?: unknown) =>
      browser.request(`/api/interactions/${uid}/${step}`, json === undefined ? { method: 'POST' } : { json });

    const after = world.mailbox.count;
    const password = await post('password', { email: user.email, password: WORLD_PASSWORD });
    expect(JSON.parse(password.body).stage).toBe('code');
    const code = await world.mailbox.waitForCode(user.email, { after });
    const coded = await post('code', { code });
    expect(coded.status, coded.body).toBe(200);
    // Not yet signed in: back to /login, which now shows the enrolment.
    expect(JSON.parse(coded.body).redirectTo).toBe(`/login?uid=${uid}`);
    expect(await stateOf(browser, uid)).toMatchObject({ stage: 'enrol', email: user.email });

    const started = await post('enrolment');
    expect(started.status, started.body).toBe(200);
    const { secret, qrCode } = JSON.parse(started.body) as { secret: string; qrCode: string };
    expect(qrCode).toMatch(/^data:image\/svg\+xml/);
    const wrong = await post('enrolment/confirm', {
      code: totpCode(secret) === '000000' ? '111111' : '000000',
    });
    expect(wrong.status).toBe(400);
    const confirmed = await post('enrolment/confirm', { code: totpCode(secret) });
    expect(confirmed.status, confirmed.body).toBe(200);
    const done = JSON.parse(confirmed.body) as { recoveryCodes: string[]; redirectTo: string };
    expect(done.recoveryCodes).toHaveLength(10);
    const last = await browser.follow(done.redirectTo, (u) => u.href.startsWith(REDIRECT));
    const tokens = await codeGrant(last.location!);
    expect(tokens.claims()).toMatchObject({ sub: user.id, amr: ['pwd', 'otp', 'mfa'], acr: MFA });

    // The next sign-in asks for the app.
    const next = await pastPassword(world, user.email);
    expect(next.state.stage).toBe('totp');
  });

  it('requires the strong factor of admins only when the policy says admins', async () => {
    const org = await orgWithPolicy({ strongFactorRequired: 'admins' });
    const member = await createUser(world.server.db, org.id, { passwordHash: world.passwordHash });
    for (const [who, expected] of [
      [member, 'https:'],
      [org.admin, 'enrol'],
    ] as const) {
      const { post, browser, uid, after } = await pastPassword(world, who.email);
      const done = await post('code', { code: await world.mailbox.waitForCode(who.email, { after }) });
      expect(done.status, done.body).toBe(200);
      const { redirectTo } = JSON.parse(done.body) as { redirectTo: string };
      if (expected === 'enrol') {
        expect(redirectTo).toBe(`/login?uid=${uid}`);
        expect((await stateOf(browser, uid)).stage).toBe('enrol');
      } else {
        expect(redirectTo).toMatch(/^http/);
      }
    }
  });

  it('holds a sign-in by ticket (after an invitation or a reset link) at the enrolment too', async () => {
    const org = await orgWithPolicy({ strongFactorRequired: 'everyone' });
    const user = await createUser(world.server.db, org.id, { passwordHash: world.passwordHash });
    const { browser, hop } = await followTicketToLogin(world, user.id);
    expect(await stateOf(browser, uidOf(hop.location))).toMatchObject({ stage: 'enrol', email: user.email });
  });

  it('without the e-mail code: not offered nor accepted as another way; once, then enrolment, for those without an app', async () => {
    const org = await orgWithPolicy({ emailCodeAllowed: false });
    const withApp = await createUser(world.server.db, org.id, { passwordHash: world.passwordHash });
    await enrolAuthenticator(world.server, await signInAs(world.server.db, withApp));
    const first = await pastPassword(world, withApp.email);
    expect(first.state).toMatchObject({ stage: 'totp', otherWays: ['recovery'] });
    const chosen = await first.post('factor', { factor: 'email' });
    expect(chosen.status).toBe(400);
    expect(JSON.parse(chosen.body).error.code).toBe('factor_not_allowed');
    expect(JSON.parse((await first.post('factor', { factor: 'recovery' })).body).otherWays).toEqual(['totp']);

    // An e-mailed code chosen before the policy changed is refused by the code step too.
    const member = await createUser(world.server.db, org.id, { passwordHash: world.passwordHash });
    await enrolAuthenticator(world.server, await signInAs(world.server.db, member));
    await inject(org.admin, 'PUT', '/api/organization/sign-in-policy', DEFAULTS);
    const earlier = await pastPassword(world, member.email);
    expect((await earlier.post('factor', { factor: 'email' })).status).toBe(200);
    const code = await world.mailbox.waitForCode(member.email, { after: earlier.after });
    await inject(org.admin, 'PUT', '/api/organization/sign-in-policy', {
      ...DEFAULTS,
      emailCodeAllowed: false,
    });
    const refused = await earlier.post('code', { code });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).error.code).toBe('factor_not_allowed');

    // No strong factor yet: the e-mailed code this once, then an app must be set up.
    const newcomer = await createUser(world.server.db, org.id, { passwordHash: world.passwordHash });
    const { post, browser, uid, after, state } = await pastPassword(world, newcomer.email);
    expect(state.stage).toBe('code');
    const done = await post('code', { code: await world.mailbox.waitForCode(newcomer.email, { after }) });
    expect(JSON.parse(done.body).redirectTo).toBe(`/login?uid=${uid}`);
    expect((await stateOf(browser, uid)).stage).toBe('enrol');
    // Confirming needs an app being set up first: no way around the enrolment.
    expect((await post('enrolment/confirm', { code: '123456' })).status).toBe(409);
  });

  it('lets an admin reset a user’s factors: removed, logged, e-mailed; others get 403 or 404', async () => {
    const org = await createOrganizationWithAdmin(world.server.db, { passwordHash: world.passwordHash });
    const user = await createUser(world.server.db, org.id, { passwordHash: world.passwordHash });
    await enrolAuthenticator(world.server, await signInAs(world.server.db, user));
    await world.server.db
      .insertInto('trusted_browsers')
      .values({
        organization_id: org.id,
        user_id: user.id,
        device_hash: 'h',
        trusted_until: new Date(Date.now() + 86_400_000),
      })
      .execute();
    const url = `/api/users/${user.id}/reset-sign-in-factors`;
    const member = await createUser(world.server.db, org.id, { passwordHash: world.passwordHash });
    expect((await inject(member, 'POST', url)).statusCode).toBe(403);
    const other = await createOrganizationWithAdmin(world.server.db, { passwordHash: world.passwordHash });
    expect((await inject(other.admin, 'POST', url)).statusCode).toBe(404);
    expect((await pastPassword(world, user.email)).state.stage).toBe('totp');

    const after = world.mailbox.count;
    const reset = await inject(org.admin, 'POST', url);
    expect(reset.statusCode, reset.body).toBe(200);
    for (const table of ['authenticator_apps', 'recovery_codes', 'trusted_browsers'] as const) {
      const left = await world.server.db
        .selectFrom(table)
        .select('id')
        .where('user_id', '=', user.id)
        .execute();
      expect(left, table).toHaveLength(0);
    }
    const mail = await world.mailbox.waitFor(user.email, { subject: RESET_MAIL, after });
    expect(mail.text).toContain('An administrator removed your authenticator app');
    const logged = await world.server.db
      .selectFrom('activity_log')
      .select(['actor_user_id', 'target_id'])
      .where('action', '=', 'user.sign_in_factors_reset')
      .where('organization_id', '=', org.id)
      .execute();
    expect(logged).toEqual([{ actor_user_id: org.admin.id, target_id: user.id }]);
    // The next sign-in is password and e-mailed code again.
    expect((await pastPassword(world, user.email)).state.stage).toBe('code');
  });
});
