import { describe, expect, it } from 'vitest';
import type { UserFactorsResponse } from '@atrium/contracts/user-factors';
import { insertPasskey } from '../../src/modules/auth/factors/passkeys/passkeys.repository.ts';
import { createOrganizationWithAdmin, createUser, signInAs, type TestUser } from '../support/fixtures.ts';
import { enrolAuthenticator } from './support/authenticator.ts';
import { useSignInWorld } from './support/sign-in-world.ts';

// Issue 30, item 10: the admin sees a user's passkeys, authenticator app and trusted browsers on
// /users/:id and removes one of them; logged, and the user e-mailed.
describe('a user’s sign-in factors on the admin’s user page', () => {
  const world = useSignInWorld();

  const inject = async (as: TestUser, method: 'GET' | 'DELETE', url: string) => {
    const session = await signInAs(world.server.db, as);
    return world.server.app.inject({ method, url, headers: session.headers });
  };

  /** A user with two passkeys, a confirmed authenticator app (and its codes) and a trusted browser. */
  async function userWithFactors(organizationId: string) {
    const user = await createUser(world.server.db, organizationId, { passwordHash: world.passwordHash });
    await enrolAuthenticator(world.server, await signInAs(world.server.db, user));
    const owner = { organizationId, userId: user.id };
    for (const name of ['Work laptop', 'Phone']) {
      await insertPasskey(world.server.db, owner, {
        credentialId: `${user.id}-${name}`,
        publicKey: 'key',
        counter: 0,
        transports: ['internal'],
        backupEligible: false,
        backedUp: false,
        name,
      });
    }
    await world.server.db
      .insertInto('trusted_browsers')
      .values({
        organization_id: organizationId,
        user_id: user.id,
        device_hash: `device-${user.id}`,
        user_agent:
          'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
        trusted_until: new Date(Date.now() + 86_400_000),
      })
      .execute();
    return user;
  }

  const factorsOf = async (as: TestUser, userId: string) => {
    const response = await inject(as, 'GET', `/api/users/${userId}/sign-in-factors`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<UserFactorsResponse>();
  };

  const logged = (organizationId: string, action: string) =>
    world.server.db
      .selectFrom('activity_log')
      .select(['actor_user_id', 'target_id', 'details'])
      .where('organization_id', '=', organizationId)
      .where('action', '=', action)
      .execute();

  it('lists the passkeys, the authenticator app and the trusted browsers, and no secret', async () => {
    const { org } = world;
    const user = await userWithFactors(org.id);
    const factors = await factorsOf(org.admin, user.id);
    expect(factors).toEqual({
      passkeys: [
        { id: expect.any(String), name: 'Work laptop', createdAt: expect.any(String), lastUsedAt: null },
        { id: expect.any(String), name: 'Phone', createdAt: expect.any(String), lastUsedAt: null },
      ],
      authenticator: { since: expect.any(String) },
      recoveryCodesLeft: 10,
      trustedBrowsers: [
        {
          id: expect.any(String),
          browser: 'Chrome on Windows',
          trustedAt: expect.any(String),
          trustedUntil: expect.any(String),
          lastUsedAt: null,
        },
      ],
    });
    const bare = await createUser(world.server.db, org.id);
    expect(await factorsOf(org.admin, bare.id)).toEqual({
      passkeys: [],
      authenticator: null,
      recoveryCodesLeft: 0,
      trustedBrowsers: [],
    });
  });

  it('removes one passkey, the authenticator app or one trusted browser: logged and e-mailed', async () => {
    const { org, mailbox } = world;
    const user = await userWithFactors(org.id);
    const before = await factorsOf(org.admin, user.id);

    let after = mailbox.count;
    const passkey = before.passkeys[0]!;
    const removed = await inject(org.admin, 'DELETE', `/api/users/${user.id}/passkeys/${passkey.id}`);
    expect(removed.statusCode, removed.body).toBe(200);
    let mail = await mailbox.waitFor(user.email, { subject: /^A passkey was removed/, after });
    expect(mail.text).toContain('An administrator of your organisation made this change.');
    expect((await factorsOf(org.admin, user.id)).passkeys.map((p) => p.name)).toEqual(['Phone']);
    expect(await logged(org.id, 'user.passkey_removed')).toEqual([
      {
        actor_user_id: org.admin.id,
        target_id: user.id,
        details: { by: 'admin', removed: 'Work laptop' },
      },
    ]);

    after = mailbox.count;
    const browser = before.trustedBrowsers[0]!;
    const untrusted = await inject(
      org.admin,
      'DELETE',
      `/api/users/${user.id}/trusted-browsers/${browser.id}`,
    );
    expect(untrusted.statusCode, untrusted.body).toBe(200);
    mail = await mailbox.waitFor(user.email, { subject: /^A browser is no longer trusted/, after });
    expect(mail.text).toContain('An administrator of your organisation made this change.');
    expect((await factorsOf(org.admin, user.id)).trustedBrowsers).toEqual([]);
    expect(await logged(org.id, 'user.trusted_browser_removed')).toHaveLength(1);

    // The app goes; the recovery codes stay while a passkey is left.
    after = mailbox.count;
    const app = await inject(org.admin, 'DELETE', `/api/users/${user.id}/authenticator`);
    expect(app.statusCode, app.body).toBe(200);
    await mailbox.waitFor(user.email, { subject: /^The authenticator app was removed/, after });
    let factors = await factorsOf(org.admin, user.id);
    expect(factors.authenticator).toBeNull();
    expect(factors.recoveryCodesLeft).toBe(10);
    expect(await logged(org.id, 'user.authenticator_removed')).toHaveLength(1);
    expect((await inject(org.admin, 'DELETE', `/api/users/${user.id}/authenticator`)).statusCode).toBe(404);

    // The last strong factor takes the recovery codes with it.
    const last = factors.passkeys[0]!;
    expect((await inject(org.admin, 'DELETE', `/api/users/${user.id}/passkeys/${last.id}`)).statusCode).toBe(
      200,
    );
    factors = await factorsOf(org.admin, user.id);
    expect(factors).toMatchObject({ passkeys: [], authenticator: null, recoveryCodesLeft: 0 });
  });

  it('is for admins of the user’s organisation: a member gets 403, another organisation’s admin 404', async () => {
    const { org } = world;
    const user = await userWithFactors(org.id);
    const { passkeys, trustedBrowsers } = await factorsOf(org.admin, user.id);
    const member = await createUser(world.server.db, org.id);
    const other = await createOrganizationWithAdmin(world.server.db);
    const requests: Array<['GET' | 'DELETE', string]> = [
      ['GET', `/api/users/${user.id}/sign-in-factors`],
      ['DELETE', `/api/users/${user.id}/passkeys/${passkeys[0]!.id}`],
      ['DELETE', `/api/users/${user.id}/authenticator`],
      ['DELETE', `/api/users/${user.id}/trusted-browsers/${trustedBrowsers[0]!.id}`],
    ];
    for (const [method, url] of requests) {
      expect((await inject(member, method, url)).statusCode, url).toBe(403);
      const foreign = await inject(other.admin, method, url);
      expect(foreign.statusCode, url).toBe(404);
    }
    // Another organisation's admin cannot reach them through one of its own users either.
    const theirs = await createUser(world.server.db, other.id);
    const crossed = await inject(
      other.admin,
      'DELETE',
      `/api/users/${theirs.id}/passkeys/${passkeys[0]!.id}`,
    );
    expect(crossed.statusCode).toBe(404);
    const still = await factorsOf(org.admin, user.id);
    expect(still.passkeys).toHaveLength(2);
    expect(still.authenticator).not.toBeNull();
    expect(still.trustedBrowsers).toHaveLength(1);
  });
});
