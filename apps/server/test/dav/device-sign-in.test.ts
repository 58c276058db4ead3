import { describe, expect, it } from 'vitest';
import { createAppPassword as createAppPasswordFor } from '../../src/modules/mail/app-passwords/app-passwords.service.ts';
import { DAV_REQUESTS_WITHOUT_CREDENTIALS } from '../../src/modules/dav/dav-rate-limit.ts';
import { useAdminWorld } from '../support/admin-world.ts';
import { createAppPassword } from '../support/app-passwords.ts';
import {
  accessTokenFor,
  basicAuth,
  davForwardAuth,
  installCatalogApp,
  mailPasswordGrant,
} from '../support/device-credentials.ts';
import { createOrganizationWithAdmin, createUser, type TestUser } from '../support/fixtures.ts';

// Issue 38 items 2 and 3: devices (phones, mail clients, calendars) sign in with app passwords and
// have no device cookie; guesses by others must never keep them out, and only the Calendar &
// Contacts app's tokens open calendars. Through the two routes the daemons ask: Caddy's
// forward_auth for /dav (dav-clients.test.ts goes through Caddy and Radicale) and Dovecot's grant
// (mail sign-in.test.ts goes through Dovecot).

const t = useAdminWorld({ env: { TRUST_PROXY: '127.0.0.1' } });
const WRONG = 'aaaaa-bbbbb-ccccc-ddddd';
const basic = basicAuth;

/** Caddy's forward_auth request for a client at `ip` asking for its own collections. */
const davAuth = (user: TestUser, authorization: string | undefined, ip: string) =>
  davForwardAuth(t, { authorization, ip, path: `/dav/${user.id}/` });

/** Dovecot's grant for a mail client at `ip`. */
const grant = (email: string, password: string, ip: string) => mailPasswordGrant(t, { email, password, ip });

describe('devices signing in with app passwords while others guess', () => {
  it('lets the owner in over IMAP and DAV 24 of 24 times while 20 addresses guess', async () => {
    const user = await createUser(t.db, t.org.id);
    const { password } = await createAppPassword(t, user, 'Phone');
    const attackers = Array.from({ length: 20 }, (_, i) => `203.0.113.${i + 1}`);
    const guessFromEveryAddress = () =>
      Promise.all(
        attackers.flatMap((ip) => [
          davAuth(user, basic(user.email, WRONG), ip),
          grant(user.email, WRONG, ip),
        ]),
      );
    // Five wrong tries from each address: 100 failures for each protocol, past every free try.
    for (let i = 0; i < 5; i++) await guessFromEveryAddress();

    const owner = { dav: 0, imap: 0 };
    const guessers = new Set<number>();
    for (let round = 0; round < 24; round++) {
      const [dav, imap, guesses] = await Promise.all([
        davAuth(user, basic(user.email, password), '198.51.100.7'),
        grant(user.email, password, '198.51.100.7'),
        guessFromEveryAddress(),
      ]);
      if (dav.statusCode === 200) owner.dav++;
      if (imap.statusCode === 200) owner.imap++;
      for (const guess of guesses) guessers.add(guess.statusCode);
    }
    expect(owner).toEqual({ dav: 24, imap: 24 });
    // The guessers were held back, not let in: past 100 failures every wrong try waits.
    expect([...guessers].sort()).toEqual([429]);

    // Behind a guesser's own address (an office's one address), the owner's device gets in too.
    expect((await davAuth(user, basic(user.email, password), attackers[0]!)).statusCode).toBe(200);
    expect((await grant(user.email, password, attackers[0]!)).statusCode).toBe(200);
    // 200 wrong app passwords checked with argon2 first: slow on a busy machine.
  }, 120_000);

  it('keeps guessing slow: wrong app passwords wait after five, and one address may make 20 a minute', async () => {
    const user = await createUser(t.db, t.org.id);
    const ip = '192.0.2.44';
    for (let i = 0; i < 5; i++) expect((await grant(user.email, WRONG, ip)).statusCode).toBe(400);
    const slowed = await grant(user.email, WRONG, ip);
    expect(slowed.statusCode).toBe(429);
    expect(slowed.json().error.code).toBe('sign_in_throttled');

    // Spread over other accounts, one address is stopped at 20 wrong tries a minute (per protocol).
    const others = await Promise.all(Array.from({ length: 5 }, () => createUser(t.db, t.org.id)));
    const sprayed = [];
    for (const other of others) {
      for (let i = 0; i < 5; i++)
        sprayed.push((await davAuth(other, basic(other.email, WRONG), ip)).statusCode);
    }
    expect(sprayed.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(sprayed.slice(20)).toEqual(Array(5).fill(429));
  });

  it('finds an app password made before digests with argon2, and by its digest from then on', async () => {
    const user = await createUser(t.db, t.org.id);
    const { id, password } = await createAppPassword(t, user, 'Old phone');
    await t.db.updateTable('app_passwords').set({ digest: null }).where('id', '=', id).execute();

    expect((await grant(user.email, password.toUpperCase(), '198.51.100.9')).statusCode).toBe(200);
    const row = await t.db
      .selectFrom('app_passwords')
      .select('digest')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.digest).toMatch(/^[\w-]{43}$/);
    // With 100 failures on record, only the digest can let it in now.
    await t.db
      .insertInto('sign_in_failures')
      .values(Array.from({ length: 100 }, (_, i) => ({ identifier: `dav:${user.email}`, ip: `10.9.0.${i}` })))
      .execute();
    expect((await davAuth(user, basic(user.email, password), '198.51.100.9')).statusCode).toBe(200);
    expect((await davAuth(user, basic(user.email, WRONG), '198.51.100.9')).statusCode).toBe(429);
  });

  it('lets 50 devices behind one address sync every 10 s for 5 minutes without a 429', async () => {
    const users = await Promise.all(Array.from({ length: 10 }, () => createUser(t.db, t.org.id)));
    const devices: { user: TestUser; password: string }[] = [];
    for (const user of users) {
      for (let i = 0; i < 5; i++) {
        // Straight through the service: the profile API limits how fast one person makes them.
        const owner = { organizationId: t.org.id, userId: user.id, label: user.email, ip: '127.0.0.1' };
        const { password } = await createAppPasswordFor(t.db, owner, `Device ${i}`);
        devices.push({ user, password });
      }
    }
    // Each sync a first request without credentials (the challenge) and two with them. The limits
    // count per minute: two minutes' syncs (12 of each device) in one minute are more than any
    // minute of 5 minutes of syncing every 10 s holds.
    const office = '198.51.100.50';
    const statuses = new Map<number, number>();
    for (let sync = 0; sync < 12; sync++) {
      const answers = await Promise.all(
        devices.flatMap(({ user, password }) => [
          davAuth(user, undefined, office),
          davAuth(user, basic(user.email, password), office),
          davAuth(user, basic(user.email, password), office),
        ]),
      );
      for (const answer of answers)
        statuses.set(answer.statusCode, (statuses.get(answer.statusCode) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 401: 50 * 12, 200: 50 * 12 * 2 });
  }, 120_000);
});

describe('the request limits of /dav', () => {
  it('gives each credential its own budget: a flood without credentials from an address does not keep its devices out', async () => {
    const user = await createUser(t.db, t.org.id);
    const { password } = await createAppPassword(t, user, 'Phone');
    const guest = '198.51.100.60';
    const flood = [];
    for (let batch = 0; batch < 31; batch++) {
      const answers = await Promise.all(Array.from({ length: 100 }, () => davAuth(user, undefined, guest)));
      flood.push(...answers.map((answer) => answer.statusCode));
    }
    expect(flood.filter((status) => status === 401)).toHaveLength(DAV_REQUESTS_WITHOUT_CREDENTIALS);
    expect(flood.slice(DAV_REQUESTS_WITHOUT_CREDENTIALS)).toEqual(Array(100).fill(429));
    expect((await davAuth(user, basic(user.email, password), guest)).statusCode).toBe(200);
  });
});

describe('DAV sign-in with an access token', () => {
  const install = (admin: TestUser, templateKey: string) => installCatalogApp(t, admin, templateKey);
  const accessToken = async (user: TestUser, clientId: string, scope: string) =>
    `Bearer ${await accessTokenFor(t, user, clientId, scope)}`;

  it("opens DAV with the Calendar & Contacts app's token of the user's organisation only", async () => {
    const user = await createUser(t.db, t.org.id);
    const calendar = await install(t.org.admin, 'calendar-contacts');
    const custom = await install(t.org.admin, 'custom');
    const other = await createOrganizationWithAdmin(t.db);
    const othersCalendar = await install(other.admin, 'calendar-contacts');

    const ip = '198.51.100.20';
    expect((await davAuth(user, await accessToken(user, calendar, 'openid'), ip)).statusCode).toBe(200);
    expect((await davAuth(user, await accessToken(user, custom, 'openid email'), ip)).statusCode).toBe(401);
    expect((await davAuth(user, await accessToken(user, othersCalendar, 'openid'), ip)).statusCode).toBe(401);
    expect((await davAuth(user, 'Bearer not-a-token', ip)).statusCode).toBe(401);
  });
});
