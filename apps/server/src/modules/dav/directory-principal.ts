import { xmlText } from '../devices/protocols/xml-text.ts';
import type { DirectoryView, PropRequest } from './directory-props.ts';
import { CARDDAV, DAV, multistatusXml, responseXml, type PropName } from './directory-xml.ts';
import { collectionResponse } from './directory.service.ts';

// The answer to a PROPFIND of the directory's own principal (directory-principal.routes.ts): a
// principal that is its own address book home, whose one member is the organisation's address
// book. What iOS asks of a CardDAV account's principal URL: current-user-principal (it follows
// it, so it must be this principal and not the user's main one, or the account would list every
// address book again), then addressbook-home-set, then the home's members at Depth 1.

const key = (ns: string, name: string) => `${ns} ${name}`;
const READ_ONLY_PRIVILEGES =
  '<D:privilege><D:read/></D:privilege><D:privilege><D:read-current-user-privilege-set/></D:privilege>';
/** What `allprop` (or no body) answers for the principal. */
const PRINCIPAL_ALLPROP: PropName[] = [
  { ns: DAV, name: 'resourcetype' },
  { ns: DAV, name: 'displayname' },
  { ns: DAV, name: 'current-user-principal' },
  { ns: DAV, name: 'principal-URL' },
  { ns: CARDDAV, name: 'addressbook-home-set' },
];

/** `standalone`: declares its namespaces itself, for a response added to Radicale's multistatus. */
export function principalResponse(
  principal: string,
  displayName: string,
  request: PropRequest,
  standalone = false,
): string {
  const href = `<D:href>${xmlText(principal)}</D:href>`;
  const known = new Map([
    [key(DAV, 'resourcetype'), '<D:collection/><D:principal/>'],
    [key(DAV, 'displayname'), xmlText(displayName)],
    [key(DAV, 'current-user-principal'), href],
    [key(DAV, 'principal-URL'), href],
    [key(CARDDAV, 'addressbook-home-set'), href],
    [key(DAV, 'current-user-privilege-set'), READ_ONLY_PRIVILEGES],
    [key(DAV, 'supported-report-set'), ''],
  ]);
  const asked =
    request.kind === 'prop'
      ? request.props
      : request.kind === 'propname'
        ? [...known.keys()].map((k) => ({
            ns: k.slice(0, k.lastIndexOf(' ')),
            name: k.slice(k.lastIndexOf(' ') + 1),
          }))
        : PRINCIPAL_ALLPROP;
  const found: [PropName, string][] = [];
  const missing: PropName[] = [];
  for (const prop of asked) {
    const value = known.get(key(prop.ns, prop.name));
    if (value === undefined) missing.push(prop);
    else found.push([prop, request.kind === 'propname' ? '' : value]);
  }
  return responseXml(principal, found, missing, standalone);
}

/**
 * The multistatus for the directory's principal at `principal`; at Depth 1 with its one member,
 * the organisation's address book, with the properties the collection itself answers
 * (directory.service.ts: its sync token, ctag, read-only privileges).
 */
export function directoryPrincipalMultistatus(o: {
  principal: string;
  view: DirectoryView;
  depth: '0' | '1';
  request: PropRequest;
}): string {
  const responses = [principalResponse(o.principal, `${o.view.organization} directory`, o.request)];
  if (o.depth === '1') responses.push(collectionResponse(o.view, o.request));
  return multistatusXml(responses);
}

const RESPONSE = /<((?:[\w.-]+:)?)response\b[\s\S]*?<\/\1response>/g;
const MULTISTATUS_START = /<(?:[\w.-]+:)?multistatus\b[^>]*>/;

/**
 * The person's own address books as a principal's home (CONTACTS_PRINCIPAL_PATH): Radicale's
 * listing of `/dav/<user>/` with only its address books kept (not the home itself, calendars, or
 * an old copy of the organisation's address book at `directoryHref`), and this principal first.
 * Radicale's own namespace declarations stay on the multistatus they came with.
 */
export function ownAddressBooksMultistatus(
  radicaleListing: string,
  principal: string,
  directoryHref: string,
): string | undefined {
  const start = MULTISTATUS_START.exec(radicaleListing);
  if (!start) return undefined;
  const books = [...radicaleListing.matchAll(RESPONSE)]
    .map((match) => match[0])
    .filter(
      (response) =>
        /<(?:[\w.-]+:)?addressbook\s*\/>/.test(response) && !response.includes(`${directoryHref}<`),
    );
  const end = radicaleListing.lastIndexOf('</');
  return `${radicaleListing.slice(0, start.index + start[0].length)}${principal}${books.join('')}${radicaleListing.slice(end)}`;
}
