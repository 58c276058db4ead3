import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DAV_MAX_BODY_BYTES } from '../../src/operator/install/dav-files.ts';
import { createAppPassword } from '../support/app-passwords.ts';
import { TestDavHost } from '../support/dav-host.ts';
import { createOrganizationWithAdmin, createUser } from '../support/fixtures.ts';
import { createTestApp } from '../support/test-app.ts';
import { useStarted } from '../support/use-started.ts';

// Issue 38, the proxy in front of Radicale as install writes it: a client cannot name the user in
// any spelling of the header Radicale believes, and cannot send a body of tens of MB.

const MAIL_HOST = 'localhost';
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

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

describe('CalDAV/CardDAV behind Caddy: what a client cannot send', () => {
  const world = useStarted(createDavWorld);
  const propfind = (davPath: string, headers: Record<string, string>, body?: string) =>
    world.dav.fetch(MAIL_HOST, {
      method: 'PROPFIND',
      path: davPath,
      headers: { depth: '0', ...headers },
      body,
    });
  /** The user names Radicale made folders for (it makes one on each user's first request). */
  const radicaleUsers = () => readdirSync(path.join(world.dav.storage, 'collection-root'));

  it('drops X-Remote-User in every spelling Radicale reads, so the user stays the one Atrium named', async () => {
    const caller = await createUser(world.server.db, world.org.id);
    const other = await createUser(world.server.db, world.org.id);
    const auth = {
      authorization: basic(caller.email, (await createAppPassword(world.server, caller, 'Phone')).password),
    };
    for (const spelling of [
      'X-Remote-User',
      'X_Remote_User',
      'x_remote_user',
      'X-Remote_User',
      'X_Remote-User',
    ]) {
      // Their own home answers as theirs: Radicale saw the caller alone, not `<caller>,<other>`.
      const own = await propfind(`/dav/${caller.id}/`, { ...auth, [spelling]: other.id });
      expect(own.status, `${spelling}: ${own.body}\n${world.dav.logs()}`).toBe(207);
      const theirs = await propfind(`/dav/${other.id}/`, { ...auth, [spelling]: other.id });
      expect([403, 404], `${spelling}: ${theirs.status}`).toContain(theirs.status);
    }
    expect(radicaleUsers().filter((name) => name.includes(','))).toEqual([]);
    expect(radicaleUsers()).not.toContain(other.id);
  });

  it('answers 413 to a body past the limit before asking Atrium, and takes a contact with its photo', async () => {
    const user = await createUser(world.server.db, world.org.id);
    const auth = {
      authorization: basic(user.email, (await createAppPassword(world.server, user, 'Phone')).password),
    };
    const tooBig = `<?xml version="1.0"?><propfind xmlns="DAV:"><prop>${'<getetag/>'.repeat(
      Math.ceil((DAV_MAX_BODY_BYTES + 1_000_000) / 10),
    )}</prop></propfind>`;
    const answer = await propfind(`/dav/${user.id}/`, { ...auth, 'content-type': 'application/xml' }, tooBig);
    expect(answer.status, answer.body.slice(0, 300)).toBe(413);

    // A contact with a 3 MB photo (4 MB as base64) is stored.
    const photo = Buffer.alloc(3 * 1024 * 1024, 7).toString('base64');
    const card = `BEGIN:VCARD\r\nVERSION:3.0\r\nUID:photo-1\r\nFN:Grace Hopper\r\nPHOTO;ENCODING=b;TYPE=JPEG:${photo}\r\nEND:VCARD\r\n`;
    const stored = await world.dav.fetch(MAIL_HOST, {
      method: 'PUT',
      path: `/dav/${user.id}/contacts/photo-1.vcf`,
      headers: { ...auth, 'content-type': 'text/vcard' },
      body: card,
    });
    expect(stored.status, `${stored.body}\n${world.dav.logs()}`).toBe(201);
  });
});
