import { XMLParser } from 'fast-xml-parser';
import { addressBookMultiGet, createDAVClient, type DAVVCard } from 'tsdav';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAppPassword } from '../support/app-passwords.ts';
import { TestDavHost } from '../support/dav-host.ts';
import { createOrganizationWithAdmin, createUser, signInAs, type TestUser } from '../support/fixtures.ts';
import { createTestApp } from '../support/test-app.ts';
import { trustingFetch } from '../support/trusting-fetch.ts';
import { useStarted } from '../support/use-started.ts';
import { VdirsyncerClient } from '../support/vdirsyncer.ts';
import { addDomain } from '../users/helpers.ts';
import { enqueue } from '../../src/modules/jobs/jobs.repository.ts';
import { REMOVE_DIRECTORY_COPIES } from '../../src/modules/dav/directory-copies.job.ts';
import { DIRECTORY_WRITER } from '../../src/operator/install/dav-files.ts';

// The organisation's address book as Atrium serves it (issue 43), through Caddy and Radicale as
// install wires them: DAVx5's and iOS's requests as they send them (sync-collection, multiget,
// addressbook-query, PROPFIND), Debian's vdirsyncer and the tsdav library.
const MAIL_HOST = 'localhost';
const DOMAIN = 'directory.example';
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** DAVx5's sync-collection body (its own namespaces: DAV: as the default, CardDAV as CARD). */
const syncBody = (token: string) =>
  `<?xml version='1.0' encoding='UTF-8' ?><sync-collection xmlns="DAV:" xmlns:CARD="urn:ietf:params:xml:ns:carddav"><sync-token>${token}</sync-token><sync-level>1</sync-level><prop><getcontenttype /><getetag /></prop></sync-collection>`;
const multigetBody = (hrefs: string[]) =>
  `<?xml version='1.0' encoding='UTF-8' ?><CARD:addressbook-multiget xmlns="DAV:" xmlns:CARD="urn:ietf:params:xml:ns:carddav"><prop><getcontenttype /><getetag /><CARD:address-data /></prop>${hrefs.map((h) => `<href>${h}</href>`).join('')}</CARD:addressbook-multiget>`;

interface Member {
  href: string;
  status?: string;
  etag?: string;
  card?: string;
}
const parser = new XMLParser({
  removeNSPrefix: true,
  isArray: (name) => name === 'response' || name === 'propstat',
});
function membersOf(xml: string): { members: Member[]; token?: string } {
  const doc = parser.parse(xml) as {
    multistatus: { response?: Record<string, unknown>[]; 'sync-token'?: string };
  };
  const members = (doc.multistatus.response ?? []).map((r) => {
    const ok = (r.propstat as { prop: Record<string, unknown>; status: string }[] | undefined)?.find((p) =>
      p.status.includes('200'),
    );
    return {
      href: String(r.href),
      status: typeof r.status === 'string' ? r.status : undefined,
      etag: ok?.prop.getetag === undefined ? undefined : String(ok.prop.getetag),
      card: ok?.prop['address-data'] === undefined ? undefined : String(ok.prop['address-data']),
    };
  });
  return { members, token: doc.multistatus['sync-token'] };
}

async function createWorld() {
  const dav = await TestDavHost.prepare();
  const server = await createTestApp({
    listen: true,
    env: { MAIL_HOST, DAV_RADICALE_ADDRESS: dav.radicaleAddress, TRUST_PROXY: '127.0.0.1' },
  });
  await dav.start({ mailHost: MAIL_HOST, atriumPort: Number(server.config.port) });
  const org = await createOrganizationWithAdmin(server.db);
  const other = await createOrganizationWithAdmin(server.db);
  await addDomain(server.db, org.id, DOMAIN);
  const colleagues = await Promise.all(
    ['Ada Lovelace', 'Grace Hopper', 'Alan Turing'].map((name) => {
      const [firstName, lastName] = name.split(' ');
      return createUser(server.db, org.id, { firstName, lastName });
    }),
  );
  const phoneUser = await createUser(server.db, org.id, { firstName: 'Margaret', lastName: 'Hamilton' });
  const phone = await createAppPassword(server, phoneUser, 'Phone');
  return {
    dav,
    server,
    org,
    other,
    colleagues,
    phoneUser,
    auth: { authorization: basic(phoneUser.email, phone.password) },
    phonePassword: phone.password,
    async close() {
      await dav.close();
      await server.close();
    },
  };
}

describe("the organisation's address book, served by Atrium", () => {
  const world = useStarted(createWorld);
  const collection = () => `/dav/${world.phoneUser.id}/directory/`;
  const dav = (method: string, davPath: string, body?: string, headers: Record<string, string> = {}) =>
    world.dav.fetch(MAIL_HOST, {
      method,
      path: davPath,
      headers: { ...world.auth, 'content-type': 'application/xml; charset=utf-8', ...headers },
      body,
    });
  const sync = async (token: string) => {
    const answer = await dav('REPORT', collection(), syncBody(token), { depth: '0' });
    expect(answer.status, `${answer.body}\n${world.dav.logs()}`).toBe(207);
    return { ...membersOf(answer.body), bytes: Buffer.byteLength(answer.body) };
  };
  const cardOf = async (href: string) => {
    const answer = await dav('REPORT', collection(), multigetBody([href]), { depth: '1' });
    expect(answer.status, answer.body).toBe(207);
    return membersOf(answer.body).members[0]!;
  };
  const hrefOf = (user: TestUser) => `${collection()}atrium-user-${user.id}.vcf`;
  async function asAdmin(method: 'POST' | 'PATCH', url: string, payload?: object) {
    const { headers } = await signInAs(world.server.db, world.org.admin);
    const answer = await world.server.app.inject({ method, url, headers, payload });
    expect(answer.statusCode, answer.body).toBeLessThan(300);
  }

  it('is named in the home listing, with its properties, and holds only this organisation', async () => {
    const home = await dav(
      'PROPFIND',
      `/dav/${world.phoneUser.id}/`,
      `<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:cs="http://calendarserver.org/ns/"><d:prop><d:resourcetype/><d:displayname/><cs:getctag/></d:prop></d:propfind>`,
      { depth: '1' },
    );
    expect(home.status, `${home.body}\n${world.dav.logs()}`).toBe(207);
    const listed = membersOf(home.body).members.map((m) => m.href);
    expect(listed).toEqual(expect.arrayContaining([`/dav/${world.phoneUser.id}/contacts/`, collection()]));
    expect(home.body.match(/\/directory\//g)).toHaveLength(1);

    const own = await dav('PROPFIND', collection(), undefined, { depth: '0' });
    expect(own.status, own.body).toBe(207);
    const { name } = await world.server.db
      .selectFrom('organizations')
      .select('name')
      .where('id', '=', world.org.id)
      .executeTakeFirstOrThrow();
    const props = await dav(
      'PROPFIND',
      collection(),
      `<?xml version="1.0"?><propfind xmlns="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav" xmlns:A="http://apple.com/ns/ical/"><prop><resourcetype/><displayname/><sync-token/><supported-report-set/><current-user-privilege-set/><A:calendar-color/></prop></propfind>`,
      { depth: '0' },
    );
    expect(props.body).toContain(`<D:displayname>${name}</D:displayname>`);
    expect(props.body).toContain('<CR:addressbook/>');
    expect(props.body).toContain('<D:sync-collection/>');
    expect(props.body).toContain('<CR:addressbook-multiget/>');
    expect(props.body).toContain('<D:read/>');
    expect(props.body).not.toContain('<D:write');
    expect(props.body).toMatch(/calendar-color[^>]*\/><\/D:prop><D:status>HTTP\/1.1 404/);

    const everyone = await sync('');
    const cards = (await dav('REPORT', collection(), multigetBody(everyone.members.map((m) => m.href)))).body;
    for (const user of [world.org.admin, ...world.colleagues, world.phoneUser])
      expect(cards).toContain(user.email);
    expect(cards).toContain(`EMAIL;TYPE=INTERNET,WORK,PREF:${world.phoneUser.email}`);
    expect(cards).not.toContain(world.other.admin.email);
    // addressbook-query: the empty filter lists everyone, a name finds one.
    const query = (filter: string) =>
      dav(
        'REPORT',
        collection(),
        `<?xml version="1.0"?><C:addressbook-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav"><D:prop><D:getetag/></D:prop>${filter}</C:addressbook-query>`,
        { depth: '1' },
      );
    expect(membersOf((await query('<C:filter/>')).body).members).toHaveLength(everyone.members.length);
    const found = membersOf(
      (
        await query(
          '<C:filter><C:prop-filter name="FN"><C:text-match collation="i;unicode-casemap" match-type="contains">hopper</C:text-match></C:prop-filter></C:filter>',
        )
      ).body,
    ).members;
    expect(found.map((m) => m.href)).toEqual([hrefOf(world.colleagues[1]!)]);
  });

  it('sends a device only what changed: a rename, a suspension, a new alias', async () => {
    const [ada, grace, alan] = world.colleagues as [TestUser, TestUser, TestUser];
    const start = await sync('');
    const before = start.members.find((m) => m.href === hrefOf(ada))!;

    await asAdmin('PATCH', `/api/users/${ada.id}`, { firstName: 'Augusta', lastName: 'King' });
    const renamed = await sync(start.token!);
    expect(renamed.members).toEqual([
      expect.objectContaining({ href: hrefOf(ada), etag: expect.any(String) }),
    ]);
    expect(renamed.members[0]!.etag).not.toBe(before.etag);
    expect(renamed.bytes).toBeLessThan(10_000);
    expect((await cardOf(hrefOf(ada))).card).toContain('FN:Augusta King');

    await asAdmin('POST', `/api/users/${grace.id}/suspend`);
    const suspended = await sync(renamed.token!);
    expect(suspended.members).toEqual([{ href: hrefOf(grace), status: 'HTTP/1.1 404 Not Found' }]);
    expect((await cardOf(hrefOf(grace))).status).toBe('HTTP/1.1 404 Not Found');

    await asAdmin('POST', '/api/mail/aliases', { userId: alan.id, localPart: 'enigma', domain: DOMAIN });
    const aliased = await sync(suspended.token!);
    expect(aliased.members.map((m) => m.href)).toEqual([hrefOf(alan)]);
    expect((await cardOf(hrefOf(alan))).card).toContain(`EMAIL;TYPE=INTERNET,WORK:enigma@${DOMAIN}`);

    // Nothing changed: nothing sent, and the token stays good.
    expect((await sync(aliased.token!)).members).toEqual([]);
    // A sign-in's write changes no card.
    await world.server.db.updateTable('users').set({ last_sign_in_at: new Date() }).execute();
    expect((await sync(aliased.token!)).members).toEqual([]);
    // Tokens Atrium never gave (Radicale's, one from a later version) start the client again.
    for (const token of ['http://radicale.org/ns/sync/abc', aliased.token!.replace(/\d+$/, '999999')]) {
      const refused = await dav('REPORT', collection(), syncBody(token));
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('valid-sync-token');
    }
  });

  it('is read only, refuses another user and a suspended one, and another organisation sees its own', async () => {
    for (const [method, target, body] of [
      [
        'PUT',
        `${collection()}intruder-1.vcf`,
        'BEGIN:VCARD\r\nVERSION:3.0\r\nUID:x\r\nFN:X\r\nEND:VCARD\r\n',
      ],
      ['DELETE', collection(), undefined],
      ['DELETE', hrefOf(world.org.admin), undefined],
      ['MKCOL', `${collection()}sub/`, undefined],
      ['PROPPATCH', collection(), undefined],
    ] as const) {
      const answer = await dav(method, target, body);
      expect(answer.status, `${method} ${target}: ${answer.body}`).toBe(403);
    }
    const colleague = world.colleagues[2]!;
    const theirs = await dav('PROPFIND', `/dav/${colleague.id}/directory/`, undefined, { depth: '0' });
    expect(theirs.status).toBe(403);

    const stranger = await createUser(world.server.db, world.other.id);
    const password = (await createAppPassword(world.server, stranger, 'Phone')).password;
    const strangers = await world.dav.fetch(MAIL_HOST, {
      method: 'REPORT',
      path: `/dav/${stranger.id}/directory/`,
      headers: { authorization: basic(stranger.email, password) },
      body: syncBody(''),
    });
    expect(strangers.status).toBe(207);
    const hrefs = membersOf(strangers.body).members.map((m) => m.href);
    expect(hrefs).toContain(`/dav/${stranger.id}/directory/atrium-user-${world.other.admin.id}.vcf`);
    expect(hrefs.join()).not.toContain(world.org.admin.id);

    const suspended = await createUser(world.server.db, world.org.id);
    const theirPassword = (await createAppPassword(world.server, suspended, 'Phone')).password;
    await asAdmin('POST', `/api/users/${suspended.id}/suspend`);
    const refused = await world.dav.fetch(MAIL_HOST, {
      method: 'REPORT',
      path: `/dav/${suspended.id}/directory/`,
      headers: { authorization: basic(suspended.email, theirPassword) },
      body: syncBody(''),
    });
    expect(refused.status).toBe(401);
    // Radicale holds nothing for it.
    expect(existsSync(path.join(world.dav.storage, 'collection-root', world.phoneUser.id, 'directory'))).toBe(
      false,
    );
  });

  it('syncs with vdirsyncer, which after a rename updates that one card', async () => {
    const client = new VdirsyncerClient(
      {
        url: world.dav.davUrl(MAIL_HOST),
        username: world.phoneUser.email,
        password: world.phonePassword,
        caCertificate: world.dav.caCertificate,
      },
      world.dav.root,
    );
    const discovered = await client.run('discover');
    expect(discovered.ok, `${discovered.output}\n${world.dav.logs()}`).toBe(true);
    expect(client.collections('contacts').sort()).toEqual(['contacts', 'directory']);
    const first = await client.run('sync');
    expect(first.ok, first.output).toBe(true);
    const directory = () => client.items('contacts', 'directory').join('\n');
    expect(directory()).toContain(world.org.admin.email);

    const alan = world.colleagues[2]!;
    await asAdmin('PATCH', `/api/users/${alan.id}`, { firstName: 'Alan M.', lastName: 'Turing' });
    const again = await client.run('-v', 'debug', 'sync');
    expect(again.ok, again.output).toBe(true);
    const copied = again.output
      .split('\n')
      .filter((line) => /Copying \(updating\)|Copying \(uploading\)/.test(line));
    expect(copied, again.output).toHaveLength(1);
    expect(copied[0]).toContain(`atrium-user-${alan.id}`);
    expect(directory()).toContain('FN:Alan M. Turing');
  });

  it("removes the copy an older release wrote into the account, and lists Atrium's one meanwhile", async () => {
    // What the old dav.address-book job left: an address book at /<id>/directory/ in Radicale.
    const radicale = `http://${world.dav.radicaleAddress}/${world.phoneUser.id}/directory/`;
    const made = await fetch(radicale, {
      method: 'MKCOL',
      headers: { 'x-remote-user': DIRECTORY_WRITER, 'content-type': 'application/xml' },
      body: `<?xml version="1.0"?><D:mkcol xmlns:D="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav"><D:set><D:prop><D:resourcetype><D:collection/><CR:addressbook/></D:resourcetype></D:prop></D:set></D:mkcol>`,
    });
    expect(made.status, await made.text()).toBe(201);
    const copy = path.join(world.dav.storage, 'collection-root', world.phoneUser.id, 'directory');
    expect(existsSync(copy)).toBe(true);
    const home = await dav('PROPFIND', `/dav/${world.phoneUser.id}/`, undefined, { depth: '1' });
    expect(home.body.match(/\/directory\//g)).toHaveLength(1);

    await enqueue(world.server.db, {
      kind: REMOVE_DIRECTORY_COPIES,
      payload: { organizationId: world.org.id },
      organizationId: world.org.id,
    });
    await world.server.app.jobs.drain();
    expect(existsSync(copy)).toBe(false);
    expect((await sync('')).members.length).toBeGreaterThan(0);
  });

  it("syncs with tsdav, whose sync-collection returns only each change's card", async () => {
    const [kate, linus, barbara] = (await Promise.all(
      ['Katherine Johnson', 'Linus Torvalds', 'Barbara Liskov'].map((name) => {
        const [firstName, lastName] = name.split(' ');
        return createUser(world.server.db, world.org.id, { firstName, lastName });
      }),
    )) as [TestUser, TestUser, TestUser];
    const transport = trustingFetch(world.dav.caCertificate);
    try {
      const client = await createDAVClient({
        serverUrl: world.dav.davUrl(MAIL_HOST),
        credentials: { username: world.phoneUser.email, password: world.phonePassword },
        authMethod: 'Basic',
        defaultAccountType: 'carddav',
        fetch: transport.fetch,
      });
      const books = await client.fetchAddressBooks();
      const directory = books.find((book) => new URL(book.url).pathname === collection());
      expect(directory, JSON.stringify(books)).toBeDefined();
      expect(directory!.reports).toContain('syncCollection');
      let objects = await client.fetchVCards({ addressBook: directory! });
      expect(objects.map((o) => o.data).join()).toContain(`FN:Katherine Johnson`);
      let syncToken = directory!.syncToken;

      // One sync from the last token: what sync-collection sends, then what tsdav makes of it.
      const syncChanges = async () => {
        const report = await client.syncCollection({
          url: directory!.url,
          props: { 'd:getetag': {} },
          syncLevel: 1,
          syncToken,
        });
        // tsdav gives a member with properties the multistatus's own status, 207.
        const sent = report
          .filter((r) => r.href)
          .map((r) => ({ href: r.href, removed: r.status === 404, etag: r.props?.getetag as unknown }));
        const { objects: changes, ...synced } = await client.smartCollectionSyncDetailed({
          collection: { ...directory!, syncToken, objects, objectMultiGet: addressBookMultiGet },
        });
        const gone = (o: DAVVCard) => [...changes.updated, ...changes.deleted].some((c) => c.url === o.url);
        objects = [...objects.filter((o) => !gone(o)), ...changes.created, ...changes.updated];
        expect(synced.syncToken).not.toBe(syncToken);
        syncToken = synced.syncToken;
        return { sent, ...changes };
      };
      const urlOf = (user: TestUser) => new URL(hrefOf(user), world.dav.davUrl(MAIL_HOST)).href;

      await asAdmin('PATCH', `/api/users/${kate.id}`, { firstName: 'Katherine', lastName: 'Goble' });
      const renamed = await syncChanges();
      expect(renamed.sent).toEqual([{ href: hrefOf(kate), removed: false, etag: expect.any(String) }]);
      expect([renamed.created, renamed.deleted]).toEqual([[], []]);
      expect(renamed.updated.map((o) => o.url)).toEqual([urlOf(kate)]);
      expect(renamed.updated[0]!.data).toContain('FN:Katherine Goble');

      await asAdmin('POST', `/api/users/${linus.id}/suspend`);
      const suspended = await syncChanges();
      expect(suspended).toEqual({
        sent: [{ href: hrefOf(linus), removed: true, etag: undefined }],
        created: [],
        updated: [],
        deleted: [{ url: urlOf(linus), etag: '' }],
      });

      await asAdmin('POST', '/api/mail/aliases', { userId: barbara.id, localPart: 'clu', domain: DOMAIN });
      const aliased = await syncChanges();
      expect(aliased.sent).toEqual([{ href: hrefOf(barbara), removed: false, etag: expect.any(String) }]);
      expect([aliased.created, aliased.deleted]).toEqual([[], []]);
      expect(aliased.updated.map((o) => o.url)).toEqual([urlOf(barbara)]);
      expect(aliased.updated[0]!.data).toContain(`EMAIL;TYPE=INTERNET,WORK:clu@${DOMAIN}`);

      // What the client now holds is what a full fetch finds.
      const fresh = await client.fetchVCards({ addressBook: directory! });
      const byUrl = (cards: DAVVCard[]) => cards.map((o) => [o.url, o.etag]).sort();
      expect(byUrl(objects)).toEqual(byUrl(fresh));
    } finally {
      transport.close();
    }
  });
});
