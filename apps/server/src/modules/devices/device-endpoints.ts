import type { DeviceSettings } from '@atrium/contracts/devices';
import type { Config } from '../../config.ts';

/**
 * Where devices reach Atrium's mail, calendars and contacts: the one place that says so. The
 * discovery documents (autoconfig, Autodiscover, .well-known), the SRV records of the DNS mapping,
 * the Apple profile and the values on /profile all read it (docs/devices.md).
 *
 * Everything is on MAIL_HOST, for every organisation: its certificate is the one IMAP and
 * submission already present, so a device trusts one name. CalDAV and CardDAV share one context
 * path there (RFC 6764 §5); the front proxy passes `/dav/` to the calendar and contacts server
 * after asking Atrium who the caller is.
 */
export const DAV_PATH = '/dav/';
/**
 * Principals Atrium answers itself (directory-principal.routes.ts), for Apple devices, which sync
 * one address book per CardDAV account (issue 43 item 2): the person's own address books in one
 * account, the organisation's address book in another, so neither takes the other's place. The
 * same URLs for every user (who it is comes from the credentials, as for `/dav/`), so autoconfig
 * and Autodiscover, which know no user, can name them too; no user id is `principals` (UUIDs).
 */
export const DAV_PRINCIPALS_PATH = `${DAV_PATH}principals/`;
/** Its home lists the person's own address books (Radicale's), not the organisation's. */
export const CONTACTS_PRINCIPAL_PATH = `${DAV_PRINCIPALS_PATH}contacts/`;
/** Its home lists the organisation's address book alone. */
export const DIRECTORY_PRINCIPAL_PATH = `${DAV_PRINCIPALS_PATH}organisation-directory/`;

/** IMAP with TLS from the first byte (RFC 8314), as `_imaps._tcp` announces it (RFC 6186). */
export const IMAPS_PORT = 993;
/** Message submission with STARTTLS (RFC 6409), as `_submission._tcp` announces it. */
export const SUBMISSION_PORT = 587;
/** CalDAV and CardDAV over https (`_caldavs._tcp`, `_carddavs._tcp`). */
export const DAV_PORT = 443;

export interface DeviceEndpoints {
  mailHost: string;
  imap: DeviceSettings['imap'];
  smtp: DeviceSettings['smtp'];
  /** `https://<MAIL_HOST>/dav/`. */
  davUrl: string;
  /** The organisation's address book as an account of its own: `https://<MAIL_HOST>/dav/principals/organisation-directory/`. */
  directoryUrl: string;
  /** The person's own address books as an account: `https://<MAIL_HOST>/dav/principals/contacts/`. */
  contactsUrl: string;
  /** Its host and port, for clients that ask for them apart (Apple's CalDAV/CardDAV payloads). */
  dav: { host: string; port: number };
}

/**
 * Whether devices can be set up here (issue 42 item 5): MAIL_HOST was named by the operator and is
 * not a name every device takes for itself (`localhost`, `*.localhost`, RFC 6761 §6.3). The default
 * `mail.<SITE_BASE_DOMAIN>` is a guess nobody published; values built from it would point nowhere.
 */
export function devicesAvailable(config: Pick<Config, 'mailHost' | 'mailHostSet'>): boolean {
  const host = config.mailHost.replace(/\.$/, '');
  return config.mailHostSet && host !== 'localhost' && !host.endsWith('.localhost');
}

export function deviceEndpoints(config: Pick<Config, 'mailHost'>): DeviceEndpoints {
  const host = config.mailHost;
  return {
    mailHost: host,
    imap: { host, port: IMAPS_PORT, security: 'SSL' },
    smtp: { host, port: SUBMISSION_PORT, security: 'STARTTLS' },
    davUrl: `https://${host}${DAV_PATH}`,
    directoryUrl: `https://${host}${DIRECTORY_PRINCIPAL_PATH}`,
    contactsUrl: `https://${host}${CONTACTS_PRINCIPAL_PATH}`,
    dav: { host, port: DAV_PORT },
  };
}

/** The values a person types into a device, for one user. */
export function deviceSettings(config: Pick<Config, 'mailHost'>, email: string): DeviceSettings {
  const { imap, smtp, davUrl } = deviceEndpoints(config);
  return { username: email, email, imap, smtp, davUrl };
}
