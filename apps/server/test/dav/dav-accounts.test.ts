import { existsSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createAppPassword as createAppPasswordFor } from '../../src/modules/mail/app-passwords/app-passwords.service.ts';
import { DEFAULTS_RECHECK_SECONDS } from '../../src/modules/dav/dav.repository.ts';
import {
  queueDavCollectionsRemoval,
  REMOVE_DAV_COLLECTIONS,
} from '../../src/modules/dav/dav-collections.job.ts';
import { createAppPassword } from '../support/app-passwords.ts';
import { TestDavHost } from '../support/dav-host.ts';
import { createOrganizationWithAdmin, createUser, type TestUser } from '../support/fixtures.ts';
import { freePort } from '../support/free-port.ts';
import { createTestApp } from '../support/test-app.ts';
import { useStarted } from '../support/use-started.ts';

// Issue 43 items 3 and 4: each user's default calendar and address book, made per user on the
// first request (never by a queued job), kept in the database rather than one process's memory,
// made again when one goes missing; and a home nobody can delete.

const MAIL_HOST = 'localhost';
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const PROPFIND_BODY =
  '<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:current-user-principal/></D:prop></D:propfind>';
const EVENT = `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Atrium test//EN\r\nBEGIN:VEVENT\r\nUID:standup-1\r\nDTSTAMP:20261127T090000Z\r\nDTSTART:20261201T090000Z\r\nDTEND:20261201T091500Z\r\nSUMMARY:Stand-up\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;
const MKADDRESSBOOK = `<?xml version="1.0" encoding="utf-8"?>
<D:mkcol xmlns:D="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav"><D:set><D:prop>
<D:resourcetype><D:collection/><CR:addressbook/></D:resourcetype><D:displayname>Suppliers</D:displayname>
</D:prop></D:set></D:mkcol>`;

/** The `DAV:response` elements of a multistatus as a namespace-aware parser reads it (Python's). */
const responsesOf = (xml: string) =>
  Number(
    execFileSync(
      'python3',
      [
        '-c',
        'import sys, xml.etree.ElementTree as E; print(len(E.fromstring(sys.stdin.buffer.read()).findall("{DAV:}response")))',
      ],
      { input: xml },
    ).toString(),
  );

async function createDavWorld() {
  const dav = await TestDavHost.prepare();
  const server = await createTestApp({
    listen: true,
    env: { MAIL_HOST, DAV_RADICALE_ADDRESS: dav.radicaleAddress, TRUST_PROXY: '127.0.0.1' },
  });
  await dav.start({ mailHost: MAIL_HOST, atriumPort: Number(server.config.port) });
  const org = await createOrganizationWithAdmin(server.db);
  return {
    dav,
    server,
    org,
    async close() {
      await dav.close();
      await server.close();
    },
  };
}

describe('CalDAV/CardDAV accounts: default collections and the home', () => {
  const world = useStarted(createDavWorld);
  const send = (method: string, davPath: string, headers: Record<string, string>, body?: string) =>
    world.dav.fetch(MAIL_HOST, { method, path: davPath, headers, body });
  const propfind = (davPath: string, auth: Record<string, string>, depth = '1') =>
    send('PROPFIND', davPath, { ...auth, depth, 'content-type': 'application/xml' }, PROPFIND_BODY);
  /** The collections Radicale holds in the user's home, as its own storage has them. */
  const stored = (userId: string, name: string) =>
    existsSync(path.join(world.dav.storage, 'collection-root', userId, name, '.Radicale.props'));
  const signedIn = async (user: TestUser) => ({
    authorization: basic(user.email, (await createAppPassword(world.server, user, 'Phone')).password),
  });

  it('refuses to delete or move the home or the DAV root (403), and deletes events and own collections', async () => {
    const user = await createUser(world.server.db, world.org.id);
    const auth = await signedIn(user);
    const home = `/dav/${user.id}/`;
    expect((await propfind(home, auth)).status, world.dav.logs()).toBe(207);

    const destination = { destination: `https://${MAIL_HOST}:${world.dav.httpsPort}/dav/${user.id}-moved/` };
    for (const [method, target, extra] of [
      ['DELETE', home, {}],
      ['DELETE', `/dav/${user.id}`, {}],
      ['DELETE', `/dav/${user.id}/calendar/..`, {}],
      ['MOVE', home, destination],
      ['DELETE', '/dav/', {}],
      ['MOVE', '/dav/', destination],
    ] as const) {
      const answer = await send(method, target, { ...auth, ...extra });
      expect(answer.status, `${method} ${target}: ${answer.body}`).toBe(403);
      expect(answer.body).toContain('cannot be deleted or moved');
    }
    expect(stored(user.id, 'calendar') && stored(user.id, 'contacts')).toBe(true);

    // An event comes and goes.
    const event = `${home}calendar/standup-1.ics`;
    expect((await send('PUT', event, { ...auth, 'content-type': 'text/calendar' }, EVENT)).status).toBe(201);
    expect((await send('DELETE', event, auth)).status).toBe(200);
    expect((await send('GET', event, auth)).status).toBe(404);
    // An address book of the user's own comes and goes.
    const own = `${home}suppliers/`;
    const made = await send('MKCOL', own, { ...auth, 'content-type': 'application/xml' }, MKADDRESSBOOK);
    expect(made.status, made.body).toBe(201);
    expect((await send('DELETE', own, auth)).status).toBe(200);
    expect(stored(user.id, 'suppliers')).toBe(false);
    expect((await propfind(home, auth)).body).not.toContain('suppliers');
  });

  it('makes a deleted default calendar or address book again at the next request', async () => {
    const user = await createUser(world.server.db, world.org.id);
    const auth = await signedIn(user);
    const home = `/dav/${user.id}/`;
    expect((await propfind(home, auth)).status).toBe(207);
    const event = `${home}calendar/standup-1.ics`;
    expect((await send('PUT', event, { ...auth, 'content-type': 'text/calendar' }, EVENT)).status).toBe(201);

    // Deleted by the user's client: there again, empty, at the next request.
    expect((await send('DELETE', `${home}calendar/`, auth)).status).toBe(200);
    const listing = await propfind(home, auth);
    expect(listing.body).toContain(`${home}calendar/`);
    expect(stored(user.id, 'calendar')).toBe(true);
    expect((await send('GET', event, auth)).status).toBe(404);
  });

  it('makes defaults removed behind its back again at the first look after the interval, from the database', async () => {
    const user = await createUser(world.server.db, world.org.id);
    const auth = await signedIn(user);
    const home = `/dav/${user.id}/`;
    expect((await propfind(home, auth)).status).toBe(207);
    // Removed on Radicale directly (an operator, a restore of an older backup).
    const direct = await fetch(`http://${world.dav.radicaleAddress}/${user.id}/contacts/`, {
      method: 'DELETE',
      headers: { 'x-remote-user': user.id },
    });
    expect(direct.status).toBe(200);
    // Within the interval no request looks at Radicale for it: the account was found a moment ago.
    expect((await propfind(home, auth)).status).toBe(207);
    expect(stored(user.id, 'contacts')).toBe(false);
    // Once the last look is older than the interval (what the database says, whichever process
    // asks), the next request looks and makes it again.
    await sql`update dav_accounts set checked_at = now() - make_interval(secs => ${DEFAULTS_RECHECK_SECONDS + 1})
      where user_id = ${user.id}`.execute(world.server.db);
    expect((await propfind(home, auth)).status).toBe(207);
    expect(stored(user.id, 'contacts')).toBe(true);
    const checked = await world.server.db
      .selectFrom('dav_accounts')
      .select(sql<boolean>`checked_at > now() - interval '1 minute'`.as('recent'))
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(checked.recent).toBe(true);
  });

  it('answers a first request Radicale cannot serve with 503 and Retry-After, queueing nothing', async () => {
    // A second Atrium on the same database whose Radicale does not answer (nothing listens there).
    const unreachable = await createTestApp({
      database: world.server.database,
      env: { MAIL_HOST, DAV_RADICALE_ADDRESS: `127.0.0.1:${await freePort()}`, TRUST_PROXY: '127.0.0.1' },
    });
    try {
      const newcomer = await createUser(world.server.db, world.org.id);
      const settled = await createUser(world.server.db, world.org.id);
      const gate = async (user: TestUser) =>
        unreachable.app.inject({
          method: 'GET',
          url: '/api/dav/auth',
          headers: {
            ...(await signedIn(user)),
            'x-forwarded-method': 'PROPFIND',
            'x-forwarded-uri': `/dav/${user.id}/`,
          },
        });
      const first = await gate(newcomer);
      expect(first.statusCode, first.body).toBe(503);
      expect(first.headers['retry-after']).toBe('10');
      expect(first.body).toContain('try again');
      const jobs = await world.server.db
        .selectFrom('jobs')
        .select('kind')
        .where('kind', 'like', 'dav.%')
        .where('organization_id', '=', world.org.id)
        .execute();
      expect(jobs).toEqual([]);

      // An account set up before is let through, and looked at again a minute later, not at once.
      await world.server.db
        .insertInto('dav_accounts')
        .values({ user_id: settled.id, organization_id: world.org.id, checked_at: null })
        .execute();
      const again = await gate(settled);
      expect(again.statusCode, again.body).toBe(200);
      expect(again.headers['x-remote-user']).toBe(settled.id);
      const row = await world.server.db
        .selectFrom('dav_accounts')
        .select(
          sql<number>`extract(epoch from checked_at + make_interval(secs => ${DEFAULTS_RECHECK_SECONDS}) - now())`.as(
            'dueIn',
          ),
        )
        .where('user_id', '=', settled.id)
        .executeTakeFirstOrThrow();
      expect(Number(row.dueIn)).toBeGreaterThan(30);
      expect(Number(row.dueIn)).toBeLessThanOrEqual(60);
    } finally {
      await unreachable.close();
    }
  });

  it("answers the directory's own principal as iOS asks it: itself as principal and home, the directory its one member", async () => {
    const user = await createUser(world.server.db, world.org.id);
    const auth = await signedIn(user);
    const principal = '/dav/principals/organisation-directory/';
    const ask = (depth: string, body: string, headers = auth) =>
      send('PROPFIND', principal, { ...headers, depth, 'content-type': 'text/xml' }, body);

    // Without credentials: the challenge iOS answers with the account's password.
    const anonymous = await send('PROPFIND', principal, { depth: '0' }, '');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Basic realm=/);

    // 1. The profile's principal URL: iOS follows current-user-principal, which stays here.
    const first = await ask(
      '0',
      '<?xml version="1.0" encoding="UTF-8"?>\n<A:propfind xmlns:A="DAV:"><A:prop><A:current-user-principal/><A:principal-URL/><A:resourcetype/></A:prop></A:propfind>',
    );
    expect(first.status, `${first.body}\n${world.dav.logs()}`).toBe(207);
    expect(first.body).toContain(`<D:current-user-principal><D:href>${principal}</D:href>`);
    expect(first.body).toContain(`<D:principal-URL><D:href>${principal}</D:href>`);
    expect(first.body).toContain('<D:resourcetype><D:collection/><D:principal/></D:resourcetype>');
    // 2. The principal's address book home is the principal itself.
    const second = await ask(
      '0',
      '<?xml version="1.0" encoding="UTF-8"?>\n<propfind xmlns="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav" xmlns:CS="http://calendarserver.org/ns/"><prop><CR:addressbook-home-set/><CR:directory-gateway/><displayname/><CS:email-address-set/><principal-collection-set/><principal-URL/><resource-id/><supported-report-set/></prop></propfind>',
    );
    expect(second.status).toBe(207);
    expect(second.body).toContain(`<CR:addressbook-home-set><D:href>${principal}</D:href>`);
    expect(second.body).toContain(`<D:displayname>Org ${world.org.siteName} directory</D:displayname>`);
    // What it does not have is named under 404, as RFC 4918 asks.
    expect(second.body).toMatch(/<CR:directory-gateway\/>.*404 Not Found/);
    // 3. The home's members: the organisation's address book, and nothing of the user's own.
    const home = await ask(
      '1',
      '<?xml version="1.0" encoding="UTF-8"?>\n<A:propfind xmlns:A="DAV:" xmlns:B="urn:ietf:params:xml:ns:carddav" xmlns:C="http://calendarserver.org/ns/" xmlns:D="http://me.com/_namespace/"><A:prop><A:add-member/><C:bulk-requests/><A:current-user-privilege-set/><A:displayname/><D:guardian-restricted/><B:max-image-size/><B:max-resource-size/><C:me-card/><A:owner/><C:push-transports/><C:pushkey/><A:quota-available-bytes/><A:quota-used-bytes/><A:resource-id/><A:resourcetype/><A:supported-report-set/><A:sync-token/></A:prop></A:propfind>',
    );
    expect(home.status).toBe(207);
    expect(responsesOf(home.body)).toBe(2);
    const hrefs = [...home.body.matchAll(/<D:href>([^<]*)<\/D:href>/g)].map((m) => m[1]);
    const responses = home.body.split(/<D:response[\s>]/).slice(1);
    expect(responses).toHaveLength(2);
    expect(responses[1]).toContain(`<D:href>/dav/${user.id}/directory/</D:href>`);
    expect(responses[1]).toContain('<D:resourcetype><D:collection/><CR:addressbook/></D:resourcetype>');
    expect(responses[1]).toContain(`<D:displayname>Org ${world.org.siteName}</D:displayname>`);
    expect(responses[1]).toContain('<D:privilege><D:read/></D:privilege>');
    expect(responses[1]).not.toContain('<D:write');
    expect(responses[1]).toContain('<X:guardian-restricted xmlns:X="http://me.com/_namespace/"/>');
    expect(hrefs.some((href) => href?.includes('/contacts/') || href?.includes('/calendar/'))).toBe(false);
    // 4. The address book itself, where iOS syncs from: the same sync token as in the listing.
    const token = /<D:sync-token>([^<]+)<\/D:sync-token>/.exec(responses[1]!)?.[1];
    expect(token).toMatch(/^http:\/\/atrium\.invalid\/ns\/directory-sync\/\d+$/);
    const book = await send(
      'PROPFIND',
      `/dav/${user.id}/directory/`,
      { ...auth, depth: '0', 'content-type': 'text/xml' },
      '<?xml version="1.0" encoding="UTF-8"?>\n<A:propfind xmlns:A="DAV:"><A:prop><A:sync-token/></A:prop></A:propfind>',
    );
    expect(book.status, book.body).toBe(207);
    expect(book.body).toContain(`<D:sync-token>${token}</D:sync-token>`);

    // The same URL for everyone: another user sees their own directory there.
    const colleague = await createUser(world.server.db, world.org.id);
    const theirs = await ask('1', '', await signedIn(colleague));
    expect(theirs.body).toContain(`<D:href>/dav/${colleague.id}/directory/</D:href>`);
    expect(theirs.body).not.toContain(user.id);
    // It changes nothing, and cannot be deleted.
    for (const method of ['DELETE', 'MOVE', 'PROPPATCH']) {
      const answer = await send(method, principal, auth);
      expect([403, 405], `${method}: ${answer.status}`).toContain(answer.status);
    }
  });

  it("answers the person's own contacts principal with their address books only, not calendars or the directory", async () => {
    const user = await createUser(world.server.db, world.org.id);
    const auth = await signedIn(user);
    const home = `/dav/${user.id}/`;
    expect((await propfind(home, auth)).status).toBe(207);
    const made = await send(
      'MKCOL',
      `${home}suppliers/`,
      { ...auth, 'content-type': 'application/xml' },
      MKADDRESSBOOK,
    );
    expect(made.status, made.body).toBe(201);
    const principal = '/dav/principals/contacts/';
    const ask = (depth: string, body: string) =>
      send('PROPFIND', principal, { ...auth, depth, 'content-type': 'text/xml' }, body);
    const first = await ask(
      '0',
      '<?xml version="1.0" encoding="UTF-8"?>\n<A:propfind xmlns:A="DAV:" xmlns:B="urn:ietf:params:xml:ns:carddav"><A:prop><A:current-user-principal/><B:addressbook-home-set/></A:prop></A:propfind>',
    );
    expect(first.status, `${first.body}\n${world.dav.logs()}`).toBe(207);
    expect(first.body).toContain(`<D:current-user-principal><D:href>${principal}</D:href>`);
    expect(first.body).toContain(`<CR:addressbook-home-set><D:href>${principal}</D:href>`);
    const listing = await ask(
      '1',
      '<?xml version="1.0" encoding="UTF-8"?>\n<A:propfind xmlns:A="DAV:" xmlns:C="http://calendarserver.org/ns/"><A:prop><A:resourcetype/><A:displayname/><C:getctag/><A:sync-token/></A:prop></A:propfind>',
    );
    expect(listing.status).toBe(207);
    expect(responsesOf(listing.body)).toBe(3);
    const hrefs = [...listing.body.matchAll(/<(?:[\w.-]+:)?href>([^<]*)<\/(?:[\w.-]+:)?href>/g)].map(
      (m) => m[1],
    );
    expect(hrefs.sort()).toEqual([principal, `${home}contacts/`, `${home}suppliers/`].sort());
    // Radicale's own properties of the address books come through (iOS syncs them by token).
    expect(listing.body).toMatch(/sync-token>[^<]+</);
    expect(listing.body).toContain('Suppliers');
  });

  it("queues a user's removal once while one is waiting or under way", async () => {
    const user = await createUser(world.server.db, world.org.id);
    const removal = { organizationId: world.org.id, userId: user.id };
    const queued = () =>
      world.server.db
        .selectFrom('jobs')
        .select(['id', 'status'])
        .where('kind', '=', REMOVE_DAV_COLLECTIONS)
        .where(sql<string>`payload ->> 'userId'`, '=', user.id)
        .execute();
    await queueDavCollectionsRemoval(world.server.db, removal);
    await queueDavCollectionsRemoval(world.server.db, removal);
    expect(await queued()).toHaveLength(1);
    await world.server.app.jobs.drain();
    expect((await queued()).map((job) => job.status)).toEqual(['done']);
    // Done: a later request is work again.
    await queueDavCollectionsRemoval(world.server.db, removal);
    expect((await queued()).map((job) => job.status).sort()).toEqual(['done', 'queued']);
    await world.server.app.jobs.drain();
  });

  it('sets up 100 accounts making their first requests at once, 20 at a time: no 502, no job, every default made', async () => {
    // Jobs queued from here on are the first requests' (other tests queue their own before).
    const { rows: clock } = await sql<{ now: Date }>`select now() as now`.execute(world.server.db);
    const since = clock[0]!.now;
    const organizations = [world.org.id];
    for (let i = 0; i < 4; i++) organizations.push((await createOrganizationWithAdmin(world.server.db)).id);
    const accounts: { user: TestUser; auth: Record<string, string> }[] = [];
    for (let i = 0; i < 100; i++) {
      const user = await createUser(world.server.db, organizations[i % organizations.length]!);
      const { password } = await createAppPasswordFor(
        world.server.db,
        { organizationId: user.organizationId, userId: user.id, label: user.email, ip: '127.0.0.1' },
        'iPhone',
      );
      accounts.push({ user, auth: { authorization: basic(user.email, password) } });
    }
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    // What a phone sends when an account is added: the root for its principal, then the home.
    /** A phone's request: a 503 names when to try again, and the client tries again (here at once). */
    const request = async (davPath: string, auth: Record<string, string>, depth: string) => {
      const answer = await propfind(davPath, auth, depth);
      count(answer.status);
      if (answer.status !== 503) return answer;
      // The gate's (a first request Radicale could not serve in time), or Caddy's own for an
      // upstream it could not reach, which it answers as 503 rather than a bare 502 (caddyfile.ts).
      expect(answer.body).toMatch(/being set up|Atrium is restarting/);
      expect(answer.headers['retry-after']).toBe(answer.body.includes('being set up') ? '10' : '5');
      const again = await propfind(davPath, auth, depth);
      count(again.status);
      return again;
    };
    const firstContact = async ({ user, auth }: (typeof accounts)[number]) => {
      await request('/dav/', auth, '0');
      return (await request(`/dav/${user.id}/`, auth, '1')).body;
    };
    const queue = [...accounts];
    const homes = new Map<string, string>();
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        for (let next = queue.shift(); next; next = queue.shift())
          homes.set(next.user.id, await firstContact(next));
      }),
    );
    // Every request ends 207; on a loaded machine a few may first get a 503 with Retry-After,
    // which the phone retries; never a 502, another error, or a request left hanging.
    const answered = Object.fromEntries(statuses);
    expect(Object.keys(answered).filter((status) => status !== '207' && status !== '503')).toEqual([]);
    expect(answered[207], world.dav.logs()).toBe(200);
    for (const { user } of accounts) {
      expect(homes.get(user.id)).toContain(`/dav/${user.id}/calendar/`);
      expect(homes.get(user.id)).toContain(`/dav/${user.id}/contacts/`);
    }
    const jobs = await world.server.db
      .selectFrom('jobs')
      .select((eb) => ['kind', eb.fn.countAll<number>().as('n')])
      .where('kind', 'like', 'dav.%')
      .where('created_at', '>=', since)
      .groupBy('kind')
      .execute();
    expect(jobs).toEqual([]);
    const rows = await world.server.db
      .selectFrom('dav_accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(
        'user_id',
        'in',
        accounts.map((a) => a.user.id),
      )
      .where('checked_at', 'is not', null)
      .executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(100);
  }, 120_000);
});
