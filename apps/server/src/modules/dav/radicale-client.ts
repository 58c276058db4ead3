/**
 * Atrium's own requests to Radicale on its loopback address, without Caddy: Radicale trusts the
 * X-Remote-User header (`[auth] type = http_x_remote_user`), so Atrium acts as the user there.
 * Paths are Radicale's own, under `/<user>/` (no /dav prefix: that is Caddy's).
 */
export interface RadicaleAddress {
  host: string;
  port: number;
}

/** The default collections every user gets on first use (issue 33). */
export const DEFAULT_CALENDAR = 'calendar';
export const DEFAULT_ADDRESS_BOOK = 'contacts';
/** The organisation's address book's name in every home (served by Atrium, not Radicale). */
const DIRECTORY_NAME = 'directory';

const MKCALENDAR_BODY = `<?xml version="1.0" encoding="utf-8"?>
<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
  <D:set><D:prop><D:displayname>Calendar</D:displayname></D:prop></D:set>
</C:mkcalendar>`;

// Extended MKCOL (RFC 5689), as CardDAV has no MKADDRESSBOOK.
const MKADDRESSBOOK_BODY = `<?xml version="1.0" encoding="utf-8"?>
<D:mkcol xmlns:D="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav">
  <D:set><D:prop>
    <D:resourcetype><D:collection/><CR:addressbook/></D:resourcetype>
    <D:displayname>Contacts</D:displayname>
  </D:prop></D:set>
</D:mkcol>`;

const PROPFIND_BODY = `<?xml version="1.0" encoding="utf-8"?>
<D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/></D:prop></D:propfind>`;

async function call(
  radicale: RadicaleAddress,
  user: string,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<{ status: number; text: string }> {
  const timeout = AbortSignal.timeout(10_000);
  const response = await fetch(`http://${radicale.host}:${radicale.port}${path}`, {
    method,
    headers: {
      'x-remote-user': user,
      ...(body ? { 'content-type': 'application/xml; charset=utf-8' } : {}),
      ...headers,
    },
    body,
    signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
  });
  return { status: response.status, text: await response.text() };
}

const userPath = (user: string) => `/${encodeURIComponent(user)}/`;

/**
 * Creates the user's calendar and address book when they have none of the kind. Radicale makes
 * the principal collection itself on the user's first request, but not these, and phones do not
 * either: they show an account with nothing in it. `signal` ends it early (the gate's budget).
 */
export async function ensureDefaultCollections(
  radicale: RadicaleAddress,
  user: string,
  signal?: AbortSignal,
): Promise<void> {
  const listing = await call(
    radicale,
    user,
    'PROPFIND',
    userPath(user),
    PROPFIND_BODY,
    { depth: '1' },
    signal,
  );
  if (listing.status !== 207) throw new Error(`Radicale answered PROPFIND with ${listing.status}`);
  // Any calendar or address book of the user counts, whatever its name (a client may make its own),
  // except an old copy of the organisation's address book, which Atrium now serves itself.
  const collections = listing.text
    .split(/<[\w-]*:?response[\s>]/)
    .filter((entry) => !new RegExp(`<[\\w-]*:?href>[^<]*/${DIRECTORY_NAME}/?<`).test(entry));
  const hasCalendar = collections.some((entry) => /<[\w-]*:?calendar\s*\/>/.test(entry));
  const hasAddressBook = collections.some((entry) => /<[\w-]*:?addressbook\s*\/>/.test(entry));
  const made = [
    hasCalendar
      ? undefined
      : call(
          radicale,
          user,
          'MKCALENDAR',
          `${userPath(user)}${DEFAULT_CALENDAR}/`,
          MKCALENDAR_BODY,
          {},
          signal,
        ),
    hasAddressBook
      ? undefined
      : call(
          radicale,
          user,
          'MKCOL',
          `${userPath(user)}${DEFAULT_ADDRESS_BOOK}/`,
          MKADDRESSBOOK_BODY,
          {},
          signal,
        ),
  ];
  for (const result of await Promise.all(made)) {
    // 405/409: made a moment ago by another request or process; that is as good.
    if (result && result.status >= 300 && result.status !== 405 && result.status !== 409) {
      throw new Error(`Radicale refused to create a default collection (${result.status})`);
    }
  }
}

/** Removes every collection of the user (their principal and all below it); gone already is fine. */
export async function removeUserCollections(radicale: RadicaleAddress, user: string): Promise<void> {
  const result = await call(radicale, user, 'DELETE', userPath(user));
  if (result.status >= 300 && result.status !== 404) {
    throw new Error(`Radicale answered DELETE of the user's collections with ${result.status}`);
  }
}

/**
 * Removes one collection at `path` (Radicale's, `/<owner>/<name>/`) as `actor`, whom the rights
 * let write it; gone already is fine.
 */
export async function removeCollection(
  radicale: RadicaleAddress,
  actor: string,
  path: string,
): Promise<void> {
  const removed = await call(radicale, actor, 'DELETE', path);
  if (removed.status >= 300 && removed.status !== 404)
    throw new Error(`Radicale answered DELETE of a collection with ${removed.status}`);
}

/**
 * The user's home as Radicale lists it to a client (PROPFIND with the client's body and depth),
 * its hrefs under `scriptName` (/dav, which Caddy strips).
 */
export async function propfindHome(
  radicale: RadicaleAddress,
  user: string,
  o: { depth: '0' | '1'; body: string; scriptName: string },
): Promise<{ status: number; text: string }> {
  return call(radicale, user, 'PROPFIND', userPath(user), o.body || undefined, {
    depth: o.depth,
    'x-script-name': o.scriptName,
  });
}
