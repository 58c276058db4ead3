import { describe, expect, it } from 'vitest';
import type { ActivityList } from '@atrium/contracts/activity';
import { createAppPassword } from '../support/app-passwords.ts';
import { basicAuth, davForwardAuth, mailPasswordGrant } from '../support/device-credentials.ts';
import { createUser, signInAs, type TestUser } from '../support/fixtures.ts';
import { useSignInWorld } from './support/sign-in-world.ts';

// Issue 38, a Low item: an admin's "Reset sign-in factors" (for a lost phone) may also revoke the
// user's app passwords, which the phone's mail and calendar apps sign in with. Checked where the
// daemons ask: Caddy's forward_auth for DAV and Dovecot's password grant for IMAP and SMTP.
describe('resetting a user’s sign-in factors, and their app passwords with it', () => {
  const world = useSignInWorld();
  /** Caddy asking whether a CalDAV request may go through. */
  const dav = async (email: string, password: string) =>
    (await davForwardAuth(world.server, { authorization: basicAuth(email, password), path: '/dav/' }))
      .statusCode;

  /** Dovecot checking an IMAP or SMTP sign-in. */
  const imap = async (email: string, password: string) =>
    (await mailPasswordGrant(world.server, { email, password })).statusCode;

  const reset = async (user: TestUser, payload?: object) => {
    const admin = await signInAs(world.server.db, world.org.admin);
    return world.server.app.inject({
      method: 'POST',
      url: `/api/users/${user.id}/reset-sign-in-factors`,
      headers: admin.headers,
      ...(payload ? { payload } : {}),
    });
  };

  /** What the admin did to `user`, as the activity log lists it (newest first). */
  const activityOf = async (user: TestUser) => {
    const admin = await signInAs(world.server.db, world.org.admin);
    const list = await world.server.app.inject({
      method: 'GET',
      url: '/api/activity?kind=user',
      headers: admin.headers,
    });
    expect(list.statusCode, list.body).toBe(200);
    return list
      .json<ActivityList>()
      .items.filter((entry) => entry.target?.id === user.id && entry.actor.userId === world.org.admin.id);
  };

  const resetMail = async (email: string, after: number) =>
    (
      await world.mailbox.waitFor(email, {
        subject: /^An administrator reset how you sign in/,
        after,
      })
    ).text;

  it('keeps the app passwords by default: the phone still syncs and reads mail', async () => {
    const user = await createUser(world.server.db, world.org.id);
    const phone = await createAppPassword(world.server, user, 'Phone');
    expect(await dav(user.email, phone.password)).toBe(200);

    const after = world.mailbox.count;
    const done = await reset(user);
    expect(done.statusCode, done.body).toBe(200);
    const told = await resetMail(user.email, after);
    expect(told).toContain('An administrator removed your authenticator app');
    expect(told).not.toContain('app passwords');
    expect(await dav(user.email, phone.password)).toBe(200);
    expect(await imap(user.email, phone.password)).toBe(200);
    expect((await reset(user, { revokeAppPasswords: false })).statusCode).toBe(200);
    expect(await dav(user.email, phone.password)).toBe(200);

    const activity = await activityOf(user);
    expect(activity.map((entry) => entry.action)).toEqual([
      'user.sign_in_factors_reset',
      'user.sign_in_factors_reset',
    ]);
    expect(activity[0]!.details).toMatchObject({ appPasswordsRevoked: 0 });
  });

  it('revokes every app password when asked: DAV and IMAP refuse them at once, logged, the user told', async () => {
    const user = await createUser(world.server.db, world.org.id);
    const phone = await createAppPassword(world.server, user, 'Phone');
    const laptop = await createAppPassword(world.server, user, 'Laptop mail');
    const other = await createUser(world.server.db, world.org.id);
    const theirs = await createAppPassword(world.server, other, 'Phone');
    // Verified a moment ago: DAV keeps such a match for a few minutes, and must still refuse.
    expect(await dav(user.email, phone.password)).toBe(200);
    expect(await imap(user.email, laptop.password)).toBe(200);

    const after = world.mailbox.count;
    const done = await reset(user, { revokeAppPasswords: true });
    expect(done.statusCode, done.body).toBe(200);
    expect(await dav(user.email, phone.password)).toBe(401);
    expect(await dav(user.email, laptop.password)).toBe(401);
    // Dovecot's grant answers a refused password with 400 invalid_grant (RFC 6749).
    expect(await imap(user.email, laptop.password)).toBe(400);
    const listed = await world.server.app.inject({
      method: 'GET',
      url: '/api/profile/app-passwords',
      headers: (await signInAs(world.server.db, user)).headers,
    });
    expect(listed.json()).toEqual({ appPasswords: [] });
    // Someone else's stay.
    expect(await dav(other.email, theirs.password)).toBe(200);

    const activity = await activityOf(user);
    expect(activity.map((entry) => entry.action).sort()).toEqual([
      'user.app_passwords_revoked',
      'user.sign_in_factors_reset',
    ]);
    const revoked = activity.find((entry) => entry.action === 'user.app_passwords_revoked')!;
    expect(revoked.actor.userId).toBe(world.org.admin.id);
    expect((revoked.details as { names: string[] }).names.sort()).toEqual(['Laptop mail', 'Phone']);
    expect(activity.find((entry) => entry.action === 'user.sign_in_factors_reset')!.details).toMatchObject({
      appPasswordsRevoked: 2,
    });
    expect(await resetMail(user.email, after)).toContain('Your app passwords were revoked too');
  });

  it('names the field of a bad option, and leaves everything as it was', async () => {
    const user = await createUser(world.server.db, world.org.id);
    const phone = await createAppPassword(world.server, user, 'Phone');
    const refused = await reset(user, { revokeAppPasswords: 'yes' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.fields).toHaveProperty('revokeAppPasswords');
    expect(await dav(user.email, phone.password)).toBe(200);
  });
});
