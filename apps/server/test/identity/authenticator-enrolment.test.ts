import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import {
  createOrganizationWithAdmin,
  createUser,
  signInAs,
  type TestOrganization,
} from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { enrolAuthenticator, totpCode } from './support/authenticator.ts';

const PASSWORD = 'correct horse battery staple';

describe('/profile: authenticator app and recovery codes', () => {
  let server: TestApp;
  let org: TestOrganization;
  let passwordHash: string;

  beforeAll(async () => {
    server = await createTestApp();
    passwordHash = await hashPassword(PASSWORD);
    org = await createOrganizationWithAdmin(server.db, { passwordHash });
  });

  afterAll(async () => {
    await server?.close();
  });

  async function newMember() {
    const user = await createUser(server.db, org.id, { passwordHash });
    return { user, session: await signInAs(server.db, user) };
  }

  const call = (
    session: { headers: Record<string, string> },
    method: 'GET' | 'POST',
    url: string,
    payload?: unknown,
  ) => server.app.inject({ method, url, headers: session.headers, ...(payload ? { payload } : {}) });

  it('shows a QR code and the secret, confirms with a first code, and gives ten recovery codes once', async () => {
    const { user, session } = await newMember();
    expect((await call(session, 'GET', '/api/profile/authenticator')).json()).toEqual({
      status: 'none',
      addedAt: null,
      recoveryCodesLeft: 0,
    });

    const started = await call(session, 'POST', '/api/profile/authenticator');
    expect(started.statusCode).toBe(200);
    const enrolment = started.json() as { secret: string; otpauthUri: string; qrCode: string };
    expect(enrolment.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(enrolment.otpauthUri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(enrolment.secret);
    expect(uri.searchParams.get('issuer')).toMatch(/^Atrium \(Org org-/);
    expect(decodeURIComponent(uri.pathname)).toContain(user.email);
    expect(enrolment.qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    const svg = Buffer.from(enrolment.qrCode.split(',')[1]!, 'base64').toString();
    expect(svg).toMatch(/^<svg/);
    expect(svg).not.toMatch(/<script|on\w+=/i);

    // Not yet set up: the app only counts once a first code proves it works.
    expect((await call(session, 'GET', '/api/profile/authenticator')).json().status).toBe('none');
    // Sealed at rest: the stored value is not the secret.
    const row = await server.db
      .selectFrom('authenticator_apps')
      .select('secret_sealed')
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_sealed).not.toContain(enrolment.secret);
    expect(row.secret_sealed.startsWith('v1.')).toBe(true);

    const wrongCode = totpCode(enrolment.secret, 5);
    const wrong = await call(session, 'POST', '/api/profile/authenticator/confirm', { code: wrongCode });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.fields.code).toBe(
      'This code is not correct. Check the app and the time on your phone.',
    );

    const confirmed = await call(session, 'POST', '/api/profile/authenticator/confirm', {
      code: totpCode(enrolment.secret),
    });
    expect(confirmed.statusCode).toBe(200);
    const { recoveryCodes } = confirmed.json() as { recoveryCodes: string[] };
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    const stored = await server.db
      .selectFrom('recovery_codes')
      .select('code_hash')
      .where('user_id', '=', user.id)
      .execute();
    expect(stored.map((s) => s.code_hash)).not.toContain(recoveryCodes[0]);

    const status = (await call(session, 'GET', '/api/profile/authenticator')).json();
    expect(status).toMatchObject({ status: 'active', recoveryCodesLeft: 10 });
    expect(status).not.toHaveProperty('secret');

    // One app at a time; the secret is never shown again.
    const again = await call(session, 'POST', '/api/profile/authenticator');
    expect(again.statusCode).toBe(409);
    expect(again.body).not.toContain(enrolment.secret);

    const activity = await server.db
      .selectFrom('activity_log')
      .select('action')
      .where('actor_user_id', '=', user.id)
      .execute();
    expect(activity.map((a) => a.action)).toContain('user.authenticator_added');
  });

  it('makes new recovery codes and removes the app only with the current password', async () => {
    const { user, session } = await newMember();
    const { recoveryCodes } = await enrolAuthenticator(server, session);

    const noPassword = await call(session, 'POST', '/api/profile/recovery-codes', {
      currentPassword: 'not it',
    });
    expect(noPassword.statusCode).toBe(400);
    expect(noPassword.json().error.fields.currentPassword).toBe('Your current password is not correct');

    const renewed = await call(session, 'POST', '/api/profile/recovery-codes', { currentPassword: PASSWORD });
    expect(renewed.statusCode).toBe(200);
    const fresh = renewed.json().recoveryCodes as string[];
    expect(fresh).toHaveLength(10);
    expect(fresh.some((c) => recoveryCodes.includes(c))).toBe(false);

    const refused = await call(session, 'POST', '/api/profile/authenticator/remove', {
      currentPassword: 'not it',
    });
    expect(refused.statusCode).toBe(400);
    expect((await call(session, 'GET', '/api/profile/authenticator')).json().status).toBe('active');

    const removed = await call(session, 'POST', '/api/profile/authenticator/remove', {
      currentPassword: PASSWORD,
    });
    expect(removed.statusCode).toBe(204);
    expect((await call(session, 'GET', '/api/profile/authenticator')).json()).toEqual({
      status: 'none',
      addedAt: null,
      recoveryCodesLeft: 0,
    });
    const left = await server.db
      .selectFrom('recovery_codes')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(left).toHaveLength(0);
  });

  it('needs a session and the CSRF token', async () => {
    const anonymous = await server.app.inject({ method: 'GET', url: '/api/profile/authenticator' });
    expect(anonymous.statusCode).toBe(401);
    const { session } = await newMember();
    const noCsrf = await server.app.inject({
      method: 'POST',
      url: '/api/profile/authenticator',
      headers: { cookie: session.cookie },
    });
    expect(noCsrf.statusCode).toBe(403);
  });
});
