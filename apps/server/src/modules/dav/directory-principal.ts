import { xmlText } from '../devices/protocols/xml-text.ts';

// The answer to a PROPFIND of the directory's own principal (directory-principal.routes.ts): a
// principal that is its own address book home, whose one member is the organisation's address
// book. What iOS asks of a CardDAV account's principal URL: current-user-principal (it follows
// it, so it must be this principal and not the user's main one, or the account would list every
// address book again), then addressbook-home-set, then the home's members at Depth 1.

const NS: Record<string, string> = {
  'DAV:': 'D',
  'urn:ietf:params:xml:ns:carddav': 'CR',
  'http://calendarserver.org/ns/': 'CS',
};

export interface PropName {
  namespace: string;
  name: string;
}

/** Every property asked for (`prop`), or undefined for allprop, propname or no body. */
export function requestedProps(body: string): PropName[] | undefined {
  const prop = /<(?:([\w.-]+):)?prop(?:\s[^>]*)?>([\s\S]*?)<\/(?:[\w.-]+:)?prop>/.exec(body);
  if (!prop) return undefined;
  const prefixes = new Map<string, string>();
  for (const [, prefix, uri] of body.matchAll(/xmlns(?::([\w.-]+))?\s*=\s*["']([^"']*)["']/g)) {
    prefixes.set(prefix ?? '', uri!);
  }
  const props: PropName[] = [];
  for (const [, prefix, name, attributes] of prop[2]!.matchAll(/<(?:([\w.-]+):)?([\w.-]+)([^>]*?)\/?>/g)) {
    const own = /xmlns\s*=\s*["']([^"']*)["']/.exec(attributes ?? '');
    props.push({ namespace: own?.[1] ?? prefixes.get(prefix ?? '') ?? 'DAV:', name: name! });
  }
  return props;
}

type Props = Map<string, string>;
const key = (namespace: string, name: string) => `${namespace} ${name}`;
const href = (path: string) => `<D:href>${xmlText(path)}</D:href>`;
const READ_PRIVILEGES =
  '<D:privilege><D:read/></D:privilege><D:privilege><D:read-current-user-privilege-set/></D:privilege>';
const reports = (names: [string, string][]) =>
  names
    .map(
      ([prefix, name]) =>
        `<D:supported-report><D:report><${prefix}:${name}/></D:report></D:supported-report>`,
    )
    .join('');

function principalProps(o: { principal: string; displayName: string }): Props {
  return new Map([
    [key('DAV:', 'resourcetype'), '<D:collection/><D:principal/>'],
    [key('DAV:', 'displayname'), xmlText(o.displayName)],
    [key('DAV:', 'current-user-principal'), href(o.principal)],
    [key('DAV:', 'principal-URL'), href(o.principal)],
    [key('urn:ietf:params:xml:ns:carddav', 'addressbook-home-set'), href(o.principal)],
    [key('DAV:', 'current-user-privilege-set'), READ_PRIVILEGES],
    [key('DAV:', 'supported-report-set'), ''],
  ]);
}

function addressBookProps(o: { displayName: string; syncToken?: string }): Props {
  const props: Props = new Map([
    [key('DAV:', 'resourcetype'), '<D:collection/><CR:addressbook/>'],
    [key('DAV:', 'displayname'), xmlText(o.displayName)],
    [key('DAV:', 'current-user-privilege-set'), READ_PRIVILEGES],
    [
      key('DAV:', 'supported-report-set'),
      reports([
        ['CR', 'addressbook-multiget'],
        ['CR', 'addressbook-query'],
        ['D', 'sync-collection'],
      ]),
    ],
  ]);
  if (o.syncToken) {
    props.set(key('DAV:', 'sync-token'), xmlText(o.syncToken));
    props.set(key('http://calendarserver.org/ns/', 'getctag'), xmlText(o.syncToken));
  }
  return props;
}

/** One `response`: what was asked and is known in a 200 propstat, the rest in a 404 one. */
function response(path: string, props: Props, asked: PropName[] | undefined): string {
  const wanted =
    asked ?? [...props.keys()].map((k) => ({ namespace: k.split(' ')[0]!, name: k.split(' ')[1]! }));
  const element = (p: PropName, value?: string) => {
    const prefix = NS[p.namespace];
    const open = prefix ? `${prefix}:${p.name}` : `X:${p.name} xmlns:X="${xmlText(p.namespace)}"`;
    const close = prefix ? `${prefix}:${p.name}` : `X:${p.name}`;
    return value === undefined || value === '' ? `<${open}/>` : `<${open}>${value}</${close}>`;
  };
  const found = wanted.filter((p) => props.has(key(p.namespace, p.name)));
  const missing = wanted.filter((p) => !props.has(key(p.namespace, p.name)));
  const propstat = (items: string[], status: string) =>
    items.length === 0
      ? ''
      : `<D:propstat><D:prop>${items.join('')}</D:prop><D:status>HTTP/1.1 ${status}</D:status></D:propstat>`;
  return `<D:response>${href(path)}${propstat(
    found.map((p) => element(p, props.get(key(p.namespace, p.name)))),
    '200 OK',
  )}${propstat(
    missing.map((p) => element(p)),
    '404 Not Found',
  )}</D:response>`;
}

/**
 * The multistatus for the directory's principal at `principal`; at Depth 1 with its one member,
 * the organisation's address book at `addressBook` (served by directory.routes.ts).
 */
export function directoryPrincipalMultistatus(o: {
  principal: string;
  addressBook: string;
  organization: string;
  depth: '0' | '1';
  asked: PropName[] | undefined;
  syncToken?: string;
}): string {
  const name = `${o.organization} directory`;
  const entries = [
    response(o.principal, principalProps({ principal: o.principal, displayName: name }), o.asked),
  ];
  if (o.depth === '1') {
    entries.push(
      response(
        o.addressBook,
        addressBookProps({ displayName: o.organization, syncToken: o.syncToken }),
        o.asked,
      ),
    );
  }
  return `<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav" xmlns:CS="http://calendarserver.org/ns/">${entries.join('')}</D:multistatus>\n`;
}
