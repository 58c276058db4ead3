import { DAV_PATH } from '../../modules/devices/device-endpoints.ts';

// The files `install` writes so that Debian's Radicale serves CalDAV and CardDAV at
// https://<MAIL_HOST>/dav/ behind Caddy, with Atrium deciding who each request is (docs/dav.md).
// Pure: install decides where they go.

/** Radicale's loopback port: only Caddy (and Atrium, for default collections) connects to it. */
export const RADICALE_PORT = 5232;
export const RADICALE_CONFIG = '/etc/radicale/config';
/** Who may do what where in Radicale (`[rights] type = from_file`). */
export const RADICALE_RIGHTS = '/etc/radicale/atrium-rights';
/**
 * The name Atrium gives itself when it writes the organisation's address book into each user's
 * account. Caddy only ever passes on a user's id (a UUID) from Atrium's answer, so no client can
 * take this name; a local process can, like any name (docs/dav.md).
 */
export const DIRECTORY_WRITER = 'atrium-directory';
/** The organisation's address book in every account: `/<user>/directory/`, read only there. */
export const DIRECTORY_COLLECTION = 'directory';
/** Debian's storage directory, owned by the radicale user the package creates. */
export const RADICALE_STORAGE = '/var/lib/radicale/collections';
/** The header that names the user to Radicale; only Caddy sets it, from Atrium's answer. */
const REMOTE_USER = 'X-Remote-User';

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
 * `route`, directives run in the order written: any X-Remote-User the client sent is dropped
 * first, then `forward_auth` asks Atrium (which sees the whole /dav/ path in X-Forwarded-Uri)
 * and copies X-Remote-User from a 2xx answer, and only then is /dav stripped for Radicale, which
 * learns the prefix from X-Script-Name. Atrium's 401/403/429 go to the client as they are.
 */
export function davCaddyRoutes(o: { mailHost: string; atriumPort: number; radicalePort?: number }): string {
  const prefix = DAV_PATH.replace(/\/$/, '');
  return [
    '@dav {',
    `\thost ${o.mailHost}`,
    `\tpath ${prefix} ${prefix}/*`,
    '}',
    'route @dav {',
    `\trequest_header -${REMOTE_USER}`,
    `\tforward_auth 127.0.0.1:${o.atriumPort} {`,
    '\t\turi /api/dav/auth',
    `\t\tcopy_headers ${REMOTE_USER}`,
    '\t}',
    `\turi strip_prefix ${prefix}`,
    `\treverse_proxy 127.0.0.1:${o.radicalePort ?? RADICALE_PORT} {`,
    `\t\theader_up X-Script-Name ${prefix}`,
    '\t}',
    '}',
    '',
  ].join('\n');
}
