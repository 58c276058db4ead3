import { xmlText } from '../devices/protocols/xml-text.ts';
import type { CardRow } from './directory.repository.ts';
import { CALENDARSERVER, CARDDAV, child, DAV, type PropName, type XmlElement } from './directory-xml.ts';

/**
 * The properties of the organisation's address book and of its cards (RFC 4918, 6352, 6578,
 * 3744's current-user-privilege-set, Apple's getctag): what PROPFIND and REPORT answer.
 */
export interface DirectoryView {
  /** The organisation's name: the address book's display name and every card's ORG. */
  organization: string;
  version: number;
  /** `/dav/<user>/`: the signed-in user's principal and home. */
  homeHref: string;
  collectionHref: string;
}

/** Properties asked for: a list, all of them (no body, `allprop`) or only their names. */
export type PropRequest = { kind: 'prop'; props: PropName[] } | { kind: 'allprop' } | { kind: 'propname' };

/** The `<D:prop>` (or allprop/propname) of a PROPFIND or REPORT body. */
export function propRequestOf(root: XmlElement | undefined): PropRequest {
  if (!root) return { kind: 'allprop' };
  if (child(root, DAV, 'propname')) return { kind: 'propname' };
  const prop = child(root, DAV, 'prop');
  if (!prop) return { kind: 'allprop' };
  return { kind: 'prop', props: prop.children.map((c) => ({ ns: c.ns, name: c.name })) };
}

/** The sync token of a version: a URI (RFC 6578 §3.2); clients keep it as it is. */
export const SYNC_TOKEN_PREFIX = 'http://atrium.invalid/ns/directory-sync/';
export const syncTokenOf = (version: number) => `${SYNC_TOKEN_PREFIX}${version}`;
/** The version a token names; undefined for one Atrium did not give (Radicale's, a made-up one). */
export function versionOfToken(token: string): number | undefined {
  if (!token.startsWith(SYNC_TOKEN_PREFIX)) return undefined;
  const digits = token.slice(SYNC_TOKEN_PREFIX.length);
  if (!/^(0|[1-9][0-9]{0,14})$/.test(digits)) return undefined;
  return Number(digits);
}

const REPORTS = [
  [DAV, 'sync-collection'],
  [CARDDAV, 'addressbook-multiget'],
  [CARDDAV, 'addressbook-query'],
] as const;
const prefix = (ns: string) => (ns === DAV ? 'D' : 'CR');
const READ_ONLY_PRIVILEGES =
  '<D:privilege><D:read/></D:privilege><D:privilege><D:read-current-user-privilege-set/></D:privilege>';

type Answer = (view: DirectoryView) => string;
const key = (ns: string, name: string) => `${ns} ${name}`;

const COLLECTION_PROPS = new Map<string, Answer>([
  [key(DAV, 'resourcetype'), () => '<D:collection/><CR:addressbook/>'],
  [key(DAV, 'displayname'), (v) => xmlText(v.organization)],
  [
    key(CARDDAV, 'addressbook-description'),
    (v) => xmlText(`Everyone at ${v.organization} (kept by Atrium, read only)`),
  ],
  [key(CALENDARSERVER, 'getctag'), (v) => String(v.version)],
  [key(DAV, 'sync-token'), (v) => xmlText(syncTokenOf(v.version))],
  [
    key(DAV, 'supported-report-set'),
    () =>
      REPORTS.map(
        ([ns, name]) =>
          `<D:supported-report><D:report><${prefix(ns)}:${name}/></D:report></D:supported-report>`,
      ).join(''),
  ],
  [key(DAV, 'current-user-privilege-set'), () => READ_ONLY_PRIVILEGES],
  [key(DAV, 'current-user-principal'), (v) => `<D:href>${xmlText(v.homeHref)}</D:href>`],
  [key(DAV, 'owner'), (v) => `<D:href>${xmlText(v.homeHref)}</D:href>`],
  [
    key(CARDDAV, 'supported-address-data'),
    () => '<CR:address-data-type content-type="text/vcard" version="3.0"/>',
  ],
]);
/** What `allprop` answers for the collection (RFC 4918 §9.1: the live properties worth sending). */
const COLLECTION_ALLPROP: PropName[] = [
  { ns: DAV, name: 'resourcetype' },
  { ns: DAV, name: 'displayname' },
  { ns: CALENDARSERVER, name: 'getctag' },
  { ns: DAV, name: 'sync-token' },
  { ns: CARDDAV, name: 'addressbook-description' },
];

export type Found = [PropName, string][];

function answer(
  request: PropRequest,
  all: PropName[],
  known: (prop: PropName) => string | undefined,
): { found: Found; missing: PropName[] } {
  const asked = request.kind === 'prop' ? request.props : all;
  const found: Found = [];
  const missing: PropName[] = [];
  for (const prop of asked) {
    const value = known(prop);
    if (value === undefined) missing.push(prop);
    else found.push([prop, request.kind === 'propname' ? '' : value]);
  }
  return { found, missing };
}

export function collectionProps(view: DirectoryView, request: PropRequest) {
  const names = request.kind === 'propname' ? [...COLLECTION_PROPS.keys()].map(splitKey) : COLLECTION_ALLPROP;
  return answer(request, names, (prop) => COLLECTION_PROPS.get(key(prop.ns, prop.name))?.(view));
}

const splitKey = (k: string): PropName => {
  const space = k.lastIndexOf(' ');
  return { ns: k.slice(0, space), name: k.slice(space + 1) };
};

/** Card properties that need the card's text. */
export const needsText = (request: PropRequest) =>
  request.kind === 'prop' &&
  request.props.some(
    (p) => (p.ns === CARDDAV && p.name === 'address-data') || (p.ns === DAV && p.name === 'getcontentlength'),
  );

export const etagOf = (row: CardRow) => `"${row.version}"`;
export const CARD_TYPE = 'text/vcard; charset=utf-8';

const CARD_ALLPROP: PropName[] = [
  { ns: DAV, name: 'getetag' },
  { ns: DAV, name: 'getcontenttype' },
  { ns: DAV, name: 'resourcetype' },
];

/** A card's properties; `vcard` only when needsText said so. */
export function cardProps(row: CardRow, vcard: string | undefined, request: PropRequest) {
  const names =
    request.kind === 'propname' ? [...CARD_ALLPROP, { ns: CARDDAV, name: 'address-data' }] : CARD_ALLPROP;
  return answer(request, names, (prop) => {
    const k = key(prop.ns, prop.name);
    if (k === key(DAV, 'getetag')) return xmlText(etagOf(row));
    if (k === key(DAV, 'getcontenttype')) return CARD_TYPE;
    if (k === key(DAV, 'resourcetype')) return '';
    if (k === key(DAV, 'current-user-privilege-set')) return READ_ONLY_PRIVILEGES;
    if (k === key(CARDDAV, 'address-data') && vcard !== undefined) return xmlText(vcard);
    if (k === key(DAV, 'getcontentlength') && vcard !== undefined) return String(Buffer.byteLength(vcard));
    return undefined;
  });
}

/** A card's name in the collection, and back (undefined for any other name). */
export const cardFileOf = (row: { kind: string; sourceId: string }) =>
  `atrium-${row.kind}-${row.sourceId}.vcf`;
const CARD_FILE =
  /^atrium-(user|address)-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.vcf$/;
export function cardRefOf(file: string): { kind: 'user' | 'address'; sourceId: string } | undefined {
  const match = CARD_FILE.exec(file);
  return match ? { kind: match[1] as 'user' | 'address', sourceId: match[2]! } : undefined;
}
