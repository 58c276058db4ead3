import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAppPassword } from '../support/app-passwords.ts';
import { TestDavHost } from '../support/dav-host.ts';
import { createOrganizationWithAdmin, createUser, signInAs } from '../support/fixtures.ts';
import { accessTokenFor, installCatalogApp } from '../support/device-credentials.ts';
import { createTestApp } from '../support/test-app.ts';
import { khalList, khardList } from '../support/khal-khard.ts';
import { useStarted } from '../support/use-started.ts';
import { VdirsyncerClient } from '../support/vdirsyncer.ts';

const MAIL_HOST = 'localhost';
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

const EVENT = `BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Atrium test//EN
BEGIN:VEVENT
UID:board-meeting-1
DTSTAMP:20261127T090000Z
DTSTART:20261201T090000Z
DTEND:20261201T100000Z
SUMMARY:Board meeting
END:VEVENT
END:VCALENDAR
`;
const CONTACT = `BEGIN:VCARD
VERSION:3.0
UID:grace-hopper-1
FN:Grace Hopper
N:Hopper;Grace;;;
EMAIL:grace@example.com
END:VCARD
`;

async function createDavWorld() {
  const dav = await TestDavHost.prepare();
  const server = await createTestApp({
    listen: true,
    env: { MAIL_HOST, DAV_RADICALE_ADDRESS: dav.radicaleAddress, TRUST_PROXY: '127.0.0.1' },
  });
  await dav.start({ mailHost: MAIL_HOST, atriumPort: Number(server.config.port) });
  const org = await createOrganizationWithAdmin(server.db);
  const other = await createOrganizationWithAdmin(server.db);
  return {
    dav,
    server,
    org,
    other,
    async close() {
      await dav.close();
      await server.close();
    },
  };
}

describe('CalDAV/CardDAV: Radicale behind Caddy, signed in by Atrium', () => {
  const world = useStarted(createDavWorld);
  const client = (username: string, password: string, url = world.dav.davUrl(MAIL_HOST)) =>
    new VdirsyncerClient(
      {
        url,
        username,
        password,
        caCertificate: world.dav.caCertificate,
      },
      world.dav.root,
    );
  /** The organisation's admin changes a user through the API, which must succeed. */
  async function asAdmin(method: 'POST' | 'DELETE', url: string) {
    const { headers } = await signInAs(world.server.db, world.org.admin);
    const answer = await world.server.app.inject({ method, url, headers });
    expect(answer.statusCode, answer.body).toBeLessThan(300);
  }
  const propfind = (user: string, password: string | undefined, davPath: string, extra = {}) =>
    world.dav.fetch(MAIL_HOST, {
      method: 'PROPFIND',
      path: davPath,
      headers: { depth: '1', ...(password ? { authorization: basic(user, password) } : {}), ...extra },
    });

  it('points .well-known/caldav and carddav at /dav/ on MAIL_HOST', async () => {
    for (const service of ['caldav', 'carddav']) {
      const answer = await world.dav.fetch(MAIL_HOST, { path: `/.well-known/${service}` });
      expect(answer.status, world.dav.logs()).toBe(301);
      expect(answer.headers.location).toBe('/dav/');
    }
  });

  it('syncs an event and a contact from one client to a second, each signed in with an app password', async () => {
    const user = await createUser(world.server.db, world.org.id);
    const phone = await createAppPassword(world.server, user, 'Phone');
    const laptop = await createAppPassword(world.server, user, 'Laptop');

    // The first finds the server from the host name alone, through /.well-known.
    const first = client(user.email, phone.password, world.dav.hostUrl(MAIL_HOST));
    const discovered = await first.run('discover');
    expect(discovered.ok, `${discovered.output}\n${world.dav.logs()}`).toBe(true);
    // Atrium made the default calendar and address book on the user's first request.
    expect(first.collections('calendars')).toEqual(['calendar']);
    // …and the organisation's address book is there too (the next test).
    expect(first.collections('contacts').sort()).toEqual(['contacts', 'directory']);
    first.write('calendars', 'calendar', 'board-meeting-1.ics', EVENT);
    first.write('contacts', 'contacts', 'grace-hopper-1.vcf', CONTACT);
    const synced = await first.run('sync');
    expect(synced.ok, synced.output).toBe(true);

    const second = client(user.email, laptop.password);
    expect((await second.run('discover')).ok).toBe(true);
    const pulled = await second.run('sync');
    expect(pulled.ok, pulled.output).toBe(true);
    expect(second.items('calendars', 'calendar').join()).toContain('SUMMARY:Board meeting');
    expect(second.items('contacts', 'contacts').join()).toContain('FN:Grace Hopper');
    // What the second client synced is what khal and khard show.
    expect(khalList(second.dir, 'calendar', '2026-12-01')).toMatch(/09:00(:00)?-10:00(:00)? Board meeting/);
    expect(khardList(second.dir, 'contacts')).toMatch(/Grace Hopper\s+internet: grace@example\.com/);
  });

  it("keeps the organisation's address book in every account, read only, within seconds of a change", async () => {
    const user = await createUser(world.server.db, world.org.id, { firstName: 'Ada', lastName: 'Lovelace' });
    const phone = client(user.email, (await createAppPassword(world.server, user, 'Phone')).password);
    expect((await phone.run('discover')).ok).toBe(true);
    expect((await phone.run('sync')).ok).toBe(true);
    const directory = () => phone.items('contacts', 'directory').join('\n');
    expect(directory()).toContain(`EMAIL;TYPE=INTERNET,WORK,PREF:${user.email}`);
    expect(directory()).toContain(`EMAIL;TYPE=INTERNET,WORK,PREF:${world.org.admin.email}`);
    expect(directory()).not.toContain(world.other.admin.email);
    const listed = khardList(phone.dir, 'directory').split('\n');
    expect(listed.find((line) => line.includes('Ada Lovelace'))).toContain(`pref: ${user.email}`);

    // A colleague added a moment ago appears without the user doing anything but sync…
    const newcomer = await createUser(world.server.db, world.org.id, {
      firstName: 'Grace',
      lastName: 'Hopper',
    });
    const synced = async () => {
      const run = await phone.run('sync');
      expect(run.ok, run.output).toBe(true);
      return directory();
    };
    await expect.poll(synced, { timeout: 30_000, interval: 500 }).toContain(newcomer.email);
    // …and is gone once deleted.
    await asAdmin('DELETE', `/api/users/${newcomer.id}`);
    await expect.poll(synced, { timeout: 30_000, interval: 500 }).not.toContain(newcomer.email);

    // Read only: a change made in the address book is refused.
    const auth = {
      authorization: basic(user.email, (await createAppPassword(world.server, user, 'Mac')).password),
    };
    const card = CONTACT.replace('grace-hopper-1', 'intruder-1');
    for (const [method, target, body] of [
      ['PUT', `/dav/${user.id}/directory/intruder-1.vcf`, card],
      ['DELETE', `/dav/${user.id}/directory/`, undefined],
      ['PROPPATCH', `/dav/${user.id}/directory/`, undefined],
    ] as const) {
      const answer = await world.dav.fetch(MAIL_HOST, { method, path: target, headers: auth, body });
      expect(answer.status, `${method} ${target}: ${answer.body}`).toBe(403);
    }

    // Another organisation's account holds its own organisation's address book, not this one.
    const stranger = await createUser(world.server.db, world.other.id);
    const theirs = client(
      stranger.email,
      (await createAppPassword(world.server, stranger, 'Phone')).password,
    );
    expect((await theirs.run('discover')).ok).toBe(true);
    expect((await theirs.run('sync')).ok).toBe(true);
    const their = theirs.items('contacts', 'directory').join('\n');
    expect(their).toContain(world.other.admin.email);
    expect(their).not.toContain(user.email);
  });

  it("gives a user of another organisation 403 or 404 on every path of the first one's collections", async () => {
    const owner = await createUser(world.server.db, world.org.id);
    const ownerPassword = (await createAppPassword(world.server, owner, 'Phone')).password;
    const ownerClient = client(owner.email, ownerPassword);
    expect((await ownerClient.run('discover')).ok).toBe(true);
    ownerClient.write('calendars', 'calendar', 'board-meeting-1.ics', EVENT);
    ownerClient.write('contacts', 'contacts', 'grace-hopper-1.vcf', CONTACT);
    expect((await ownerClient.run('sync')).ok).toBe(true);

    const stranger = await createUser(world.server.db, world.other.id);
    const { password } = await createAppPassword(world.server, stranger, 'Phone');
    const auth = { authorization: basic(stranger.email, password) };
    const paths = [
      `/dav/${owner.id}`,
      `/dav/${owner.id}/`,
      `/dav/${owner.id}/calendar/`,
      `/dav/${owner.id}/contacts/`,
      `/dav/${owner.id}/calendar/board-meeting-1.ics`,
      `/dav/${owner.id}/contacts/grace-hopper-1.vcf`,
      `/dav/${owner.id}/calendar/new.ics`,
      `/dav/${stranger.id}/../${owner.id}/calendar/`,
      `/dav/%2e%2e/dav/${owner.id}/`,
    ];
    for (const davPath of paths) {
      for (const method of ['GET', 'PROPFIND', 'REPORT', 'PUT', 'DELETE', 'MKCOL', 'PROPPATCH']) {
        const body = method === 'PUT' ? EVENT : undefined;
        const answer = await world.dav.fetch(MAIL_HOST, { method, path: davPath, headers: auth, body });
        expect([403, 404], `${method} ${davPath}: ${answer.status} ${answer.body}`).toContain(answer.status);
      }
    }
    // The DAV root, which everyone may list, does not name the owner to the stranger.
    const root = await propfind(stranger.email, password, '/dav/');
    expect(root.status).toBe(207);
    expect(root.body).not.toContain(owner.id);
    // Claiming to be the owner changes nothing: Caddy drops the header, Atrium names the caller.
    const forged = await propfind(stranger.email, password, `/dav/${owner.id}/`, {
      'x-remote-user': owner.id,
    });
    expect([403, 404]).toContain(forged.status);
    // Still all there for the owner.
    const own = await propfind(owner.email, ownerPassword, `/dav/${owner.id}/calendar/`);
    expect(own.status).toBe(207);
    expect(own.body).toContain('board-meeting-1.ics');
  });

  it('refuses a request that did not pass Atrium, with or without a forged X-Remote-User', async () => {
    const owner = await createUser(world.server.db, world.org.id);
    const { password } = await createAppPassword(world.server, owner, 'Phone');
    expect((await propfind(owner.email, password, `/dav/${owner.id}/`)).status).toBe(207);
    for (const headers of [{}, { 'x-remote-user': owner.id }]) {
      const answer = await propfind(owner.email, undefined, `/dav/${owner.id}/`, headers);
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toMatch(/^Basic realm=/);
    }
    // Radicale itself, reached without a user name, lets nobody in.
    const direct = await fetch(`http://${world.dav.radicaleAddress}/${owner.id}/`, { method: 'PROPFIND' });
    expect([401, 403]).toContain(direct.status);
  });

  it('refuses a suspended user, a revoked app password, a wrong one and an unknown address alike', async () => {
    const user = await createUser(world.server.db, world.org.id);
    const kept = await createAppPassword(world.server, user, 'Phone');
    const revoked = await createAppPassword(world.server, user, 'Old phone');
    const home = `/dav/${user.id}/`;
    expect((await propfind(user.email, kept.password, home)).status).toBe(207);
    expect((await propfind(user.email, revoked.password, home)).status).toBe(207);

    const revoke = await world.server.app.inject({
      method: 'DELETE',
      url: `/api/profile/app-passwords/${revoked.id}`,
      headers: revoked.session.headers,
    });
    expect(revoke.statusCode, revoke.body).toBe(204);
    expect((await propfind(user.email, revoked.password, home)).status).toBe(401);
    expect((await propfind(user.email, 'aaaaa-bbbbb-ccccc-ddddd', home)).status).toBe(401);
    expect((await propfind('nobody@example.com', kept.password, home)).status).toBe(401);

    await asAdmin('POST', `/api/users/${user.id}/suspend`);
    expect((await propfind(user.email, kept.password, home)).status).toBe(401);
  });

  it('accepts an access token of the Calendar & Contacts app as a Bearer token', async () => {
    const user = await createUser(world.server.db, world.org.id);
    const { server } = world;
    const calendar = await installCatalogApp(server, world.org.admin, 'calendar-contacts');
    const bearer = { authorization: `Bearer ${await accessTokenFor(server, user, calendar, 'openid')}` };
    const answer = await world.dav.fetch(MAIL_HOST, {
      method: 'PROPFIND',
      path: `/dav/${user.id}/`,
      headers: { depth: '1', ...bearer },
    });
    expect(answer.status, answer.body).toBe(207);
    const wrong = await world.dav.fetch(MAIL_HOST, {
      method: 'PROPFIND',
      path: `/dav/${user.id}/`,
      headers: { authorization: 'Bearer not-a-token' },
    });
    expect(wrong.status).toBe(401);
  });

  it("removes a deleted user's calendars and address books", async () => {
    const user = await createUser(world.server.db, world.org.id);
    const { password } = await createAppPassword(world.server, user, 'Phone');
    expect((await propfind(user.email, password, `/dav/${user.id}/`)).status).toBe(207);
    const home = path.join(world.dav.storage, 'collection-root', user.id);
    expect(existsSync(path.join(home, 'calendar'))).toBe(true);

    await asAdmin('DELETE', `/api/users/${user.id}`);
    await expect.poll(() => existsSync(home), { timeout: 30_000, interval: 100 }).toBe(false);
  });
});
