import { DAV_PATH, DAV_PRINCIPALS_PATH } from '../../modules/devices/device-endpoints.ts';

// The files `install` writes so that Debian's Radicale serves CalDAV and CardDAV at
// https://<MAIL_HOST>/dav/ behind Caddy, with Atrium deciding who each request is (docs/dav.md).
// Pure: install decides where they go.

/** Radicale's loopback port: only Caddy (and Atrium, for default collections) connects to it. */
export const RADICALE_PORT = 5232;
/** Connections Radicale takes at once (a thread each; its default is 8). */
export const RADICALE_MAX_CONNECTIONS = 64;
export const RADICALE_CONFIG = '/etc/radicale/config';
/** Who may do what where in Radicale (`[rights] type = from_file`). */
export const RADICALE_RIGHTS = '/etc/radicale/atrium-rights';
/**
 * The name Atrium gives itself to remove the copies of the organisation's address book that older
 * releases wrote into each account (directory-copies.job.ts). Caddy only ever passes on a user's
 * id (a UUID) from Atrium's answer, so no client can take this name; a local process can, like
 * any name (docs/dav.md).
 */
export const DIRECTORY_WRITER = 'atrium-directory';
/**
 * The organisation's address book in every home: `/dav/<user>/directory/`, served by Atrium
 * (Caddy routes it there); Radicale's rights keep the name read only in case a request reaches it.
 */
export const DIRECTORY_COLLECTION = 'directory';
/** Debian's storage directory, owned by the radicale user the package creates. */
export const RADICALE_STORAGE = '/var/lib/radicale/collections';
/** The header that names the user to Radicale; only Caddy sets it, from Atrium's answer. */
const REMOTE_USER = 'X-Remote-User';
/**
 * Every spelling Radicale reads as that header: its server (Python's wsgiref) turns each `-` of a
 * header's name into `_`, so `X_Remote_User` and the mixed ones reach it as HTTP_X_REMOTE_USER
 * too, joined to Caddy's with a comma (issue 38). Go compares names ignoring case, so these four
 * cover every case as well.
 */
const REMOTE_USER_SPELLINGS = ['X-Remote-User', 'X_Remote_User', 'X-Remote_User', 'X_Remote-User'];
/**
 * The largest request body /dav takes: under 10 MB (10,000,000 bytes). What clients send is an
 * event or a contact (a few KB), a contact with its photo (phones send a few hundred KB; a camera's
 * full photo, base64 in the vCard, 3–7 MB) or an event with an attachment, and PROPFIND/REPORT
 * bodies of a few KB; this fits all of them and stops a body of tens of MB (a 48 MB PROPFIND was
 * answered with 105 MB). 10^7 - 1, so that Caddy can judge a declared Content-Length by its digits.
 */
export const DAV_MAX_BODY_BYTES = 9_999_999;
/** A Content-Length of DAV_MAX_BODY_BYTES + 1 (10^7) or more: 8 digits or more, leading zeros aside. */
const TOO_LARGE_CONTENT_LENGTH = '^0*[1-9][0-9]{7,}$';

export interface RadicaleOptions {
  port?: number;
  storage?: string;
  rightsFile?: string;
}

/**
 * /etc/radicale/config. Radicale believes X-Remote-User (`http_x_remote_user`), so it listens on
 * loopback only, where Caddy is the one that sets that header; the rights file (radicaleRights)
 * keeps every user to `/<user>/…`. The web interface is off: users manage calendars in their clients.
 */
export function radicaleConfig(o: RadicaleOptions = {}): string {
  return [
    '# Written by `npm run atrium -- install` (docs/dav.md); run it again rather than editing.',
    '[server]',
    `hosts = 127.0.0.1:${o.port ?? RADICALE_PORT}`,
    // The same limit as Caddy's for /dav, for a request from this host that does not pass Caddy.
    `max_content_length = ${DAV_MAX_BODY_BYTES}`,
    // Radicale's default of 8 connections, with Python's accept backlog of 5, left a busy Radicale
    // not accepting phones' connections for seconds, and Caddy gave up dialing (a 502, issue 43):
    // its storage lock orders the writes anyway, so waiting connections are taken and wait inside.
    `max_connections = ${RADICALE_MAX_CONNECTIONS}`,
    '',
    '[auth]',
    'type = http_x_remote_user',
    '',
    '[rights]',
    'type = from_file',
    `file = ${o.rightsFile ?? RADICALE_RIGHTS}`,
    '',
    '[storage]',
    `filesystem_folder = ${o.storage ?? RADICALE_STORAGE}`,
    '',
    '[web]',
    'type = none',
    '',
  ].join('\n');
}

/**
 * Radicale's rights (first matching section wins; patterns match whole names): Radicale's own
 * `owner_only` — everyone lists the root, each user owns `/<user>/` and what is below it — except
 * that the organisation's address book is read only for its user, and only Atrium's directory
 * writer may write it, in every account.
 */
export function radicaleRights(): string {
  const section = (name: string, user: string, collection: string, permissions: string) =>
    `[${name}]\nuser: ${user}\ncollection: ${collection}\npermissions: ${permissions}\n`;
  return [
    '# Written by `npm run atrium -- install` (docs/dav.md); run it again rather than editing.',
    section('root', '.+', '', 'R'),
    section('directory-writer', DIRECTORY_WRITER, `[^/]+/${DIRECTORY_COLLECTION}`, 'rw'),
    section('principal', '.+', '{user}', 'RW'),
    section('directory-read-only', '.+', `{user}/${DIRECTORY_COLLECTION}`, 'r'),
    section('own-collections', '.+', '{user}/[^/]+', 'rw'),
  ].join('\n');
}

/**
 * The Caddy (2.6) routes for /dav/ on MAIL_HOST, inside the site block that serves it. In a
 * `route`, directives run in the order written: any X-Remote-User the client sent, in any
 * spelling Radicale reads, is dropped first, the body is limited (413 past DAV_MAX_BODY_BYTES),
 * then `forward_auth` asks Atrium (which sees the whole /dav/ path in X-Forwarded-Uri) and copies
 * X-Remote-User from a 2xx answer, and only then is /dav stripped for Radicale, which learns the
 * prefix from X-Script-Name. Atrium's 401/403/429 go to the client as they are.
 */
export function davCaddyRoutes(o: { mailHost: string; atriumPort: number; radicalePort?: number }): string {
  const prefix = DAV_PATH.replace(/\/$/, '');
  return [
    '@dav {',
    `\thost ${o.mailHost}`,
    `\tpath ${prefix} ${prefix}/*`,
    '}',
    'route @dav {',
    ...REMOTE_USER_SPELLINGS.map((name) => `\trequest_header -${name}`),
    // A body declared too large is refused before Atrium is asked. One sent without a length
    // (chunked) is cut at the limit; Radicale reads no body without a Content-Length anyway, and
    // when the cut comes before its answer reverse_proxy reports a 502, which the site's handle_errors
    // turns into the 413 it is.
    `\t@dav-too-large header_regexp Content-Length ${TOO_LARGE_CONTENT_LENGTH}`,
    '\trespond @dav-too-large 413',
    '\trequest_body {',
    `\t\tmax_size ${DAV_MAX_BODY_BYTES}`,
    '\t}',
    `\tforward_auth 127.0.0.1:${o.atriumPort} {`,
    '\t\turi /api/dav/auth',
    `\t\tcopy_headers ${REMOTE_USER}`,
    '\t}',
    // Apple's CardDAV accounts (issue 43 item 2): Atrium answers their principals.
    `\t@dav-principals path ${DAV_PRINCIPALS_PATH.replace(/\/$/, '')} ${DAV_PRINCIPALS_PATH}*`,
    `\treverse_proxy @dav-principals 127.0.0.1:${o.atriumPort}`,
    // The organisation's address book is Atrium's (docs/dav.md): `/dav/<id>/directory/` and its
    // cards, and the home's listing, which Atrium takes from Radicale and completes with it.
    `\t@dav-directory path_regexp ^${prefix}/[^/]+/${DIRECTORY_COLLECTION}(/.*)?$`,
    `\treverse_proxy @dav-directory 127.0.0.1:${o.atriumPort}`,
    '\t@dav-home {',
    '\t\tmethod PROPFIND',
    `\t\tpath_regexp ^${prefix}/[^/]+/?$`,
    '\t}',
    `\treverse_proxy @dav-home 127.0.0.1:${o.atriumPort}`,
    `\turi strip_prefix ${prefix}`,
    `\treverse_proxy 127.0.0.1:${o.radicalePort ?? RADICALE_PORT} {`,
    `\t\theader_up X-Script-Name ${prefix}`,
    // A connection Radicale did not take in time is tried again for up to 5 s (only the dial: a
    // request already sent is never repeated), so a burst of phones meets a wait, not a 502.
    '\t\tlb_try_duration 5s',
    '\t\tlb_try_interval 250ms',
    '\t}',
    '}',
    '',
  ].join('\n');
}

/**
 * For the site's one handle_errors block (caddyfile.ts: Caddy runs only the first such block of a
 * site): a body cut at DAV_MAX_BODY_BYTES, which reverse_proxy reports as a 502, is the 413 it is.
 */
export const DAV_ERROR_LINES = [
  '@body-too-large expression `{http.error.message}.contains("request body too large")`',
  'respond @body-too-large 413',
];
