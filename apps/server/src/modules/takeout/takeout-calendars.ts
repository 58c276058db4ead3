import type { TarWriter } from '../../lib/tar-writer.ts';
import { DIRECTORY_COLLECTION } from '../../operator/install/dav-files.ts';
import type { RadicaleAddress } from '../dav/radicale-client.ts';

/**
 * A user's calendars and address books into a takeout archive: one `.ics` per calendar under
 * `calendars/<address>/` and one `.vcf` per address book under `contacts/<address>/`, as
 * Radicale serves a whole collection to a GET (every event of a calendar in one VCALENDAR, every
 * card of an address book one after another), read on its loopback address as the user, the way
 * Atrium makes their default collections (radicale-client.ts). The organisation's directory is
 * left out: it is in users.json, and it is not the user's.
 */

export interface CalendarsOutcome {
  calendars: number;
  addressBooks: number;
}

interface Collection {
  href: string;
  name: string;
  kind: 'calendar' | 'addressbook';
}

const PROPFIND_BODY = `<?xml version="1.0" encoding="utf-8"?>
<D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:displayname/></D:prop></D:propfind>`;

async function radicaleRequest(
  radicale: RadicaleAddress,
  user: string,
  method: string,
  href: string,
  o: { body?: string; depth?: string } = {},
): Promise<{ status: number; text: string }> {
  const response = await fetch(`http://${radicale.host}:${radicale.port}${href}`, {
    method,
    headers: {
      'x-remote-user': user,
      ...(o.depth ? { depth: o.depth } : {}),
      ...(o.body ? { 'content-type': 'application/xml; charset=utf-8' } : {}),
    },
    body: o.body,
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, text: await response.text() };
}

/** The user's calendars and address books, from a Depth 1 PROPFIND of their home. */
async function collectionsOf(radicale: RadicaleAddress, userId: string): Promise<Collection[]> {
  const home = `/${encodeURIComponent(userId)}/`;
  const listing = await radicaleRequest(radicale, userId, 'PROPFIND', home, {
    body: PROPFIND_BODY,
    depth: '1',
  });
  if (listing.status === 404) return [];
  if (listing.status !== 207) throw new Error(`Radicale answered PROPFIND of a home with ${listing.status}`);
  const found: Collection[] = [];
  for (const entry of listing.text.split(/<[\w-]*:?response[\s>]/).slice(1)) {
    const href = /<[\w-]*:?href>([^<]+)</.exec(entry)?.[1];
    const kind = /<[\w-]*:?calendar\s*\/>/.test(entry)
      ? 'calendar'
      : /<[\w-]*:?addressbook\s*\/>/.test(entry)
        ? 'addressbook'
        : undefined;
    if (!href || !kind) continue;
    const segment = decodeURIComponent(href.replace(/\/$/, '').split('/').pop() ?? '');
    if (segment === DIRECTORY_COLLECTION) continue;
    found.push({ href, name: segment, kind });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/** A collection's name as a file name: what a file system takes, never a path. */
const fileName = (name: string) => name.replace(/[/\\\0]/g, '_').replace(/^\.+/, '_') || '_';

/** Writes `user`'s calendars and address books below `root`; none is fine (nothing written). */
export async function exportCalendars(
  radicale: RadicaleAddress,
  tar: TarWriter,
  root: string,
  user: { id: string; email: string },
): Promise<CalendarsOutcome> {
  const outcome: CalendarsOutcome = { calendars: 0, addressBooks: 0 };
  for (const collection of await collectionsOf(radicale, user.id)) {
    // Radicale's hrefs carry its own prefix only when told one (X-Script-Name); Atrium asks without.
    const got = await radicaleRequest(
      radicale,
      user.id,
      'GET',
      new URL(collection.href, 'http://x').pathname,
    );
    if (got.status !== 200)
      throw new Error(`Radicale answered GET of a ${collection.kind} with ${got.status}`);
    const calendar = collection.kind === 'calendar';
    const dir = `${root}/${calendar ? 'calendars' : 'contacts'}/${user.email}`;
    await tar.file(
      { name: `${dir}/${fileName(collection.name)}.${calendar ? 'ics' : 'vcf'}`, mode: 0o600 },
      Buffer.from(got.text, 'utf8'),
    );
    if (calendar) outcome.calendars++;
    else outcome.addressBooks++;
  }
  return outcome;
}
