import { XMLParser } from 'fast-xml-parser';
import { xmlText } from '../devices/protocols/xml-text.ts';

/**
 * The WebDAV XML Atrium reads and writes for the organisation's address book (RFC 4918, 6352,
 * 6578): requests become a small tree of namespaced elements; answers are written as text with
 * the namespaces declared where they are used, so they can be merged into Radicale's answers too.
 */
export const DAV = 'DAV:';
export const CARDDAV = 'urn:ietf:params:xml:ns:carddav';
export const CALENDARSERVER = 'http://calendarserver.org/ns/';

export interface XmlElement {
  ns: string;
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

export class DavXmlError extends Error {}

const MAX_DEPTH = 32;

/** Parses a request body; an empty one is undefined (PROPFIND's allprop). */
export function parseDavXml(body: string): XmlElement | undefined {
  if (body.trim() === '') return undefined;
  if (/<!DOCTYPE/i.test(body)) throw new DavXmlError('A document type declaration is not accepted');
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    processEntities: true,
    htmlEntities: false,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    maxNestedTags: MAX_DEPTH,
  });
  let nodes: unknown;
  try {
    nodes = parser.parse(body);
  } catch (error) {
    throw new DavXmlError(`The request XML could not be read: ${(error as Error).message}`);
  }
  const root = toElements(nodes as RawNode[], {}).find(Boolean);
  if (!root) throw new DavXmlError('The request XML has no element');
  return root;
}

type RawNode = Record<string, unknown>;

function toElements(nodes: RawNode[], scope: Record<string, string>): XmlElement[] {
  const elements: XmlElement[] = [];
  for (const node of nodes) {
    const tag = Object.keys(node).find((key) => key !== ':@' && key !== '#text' && !key.startsWith('?'));
    if (!tag) continue;
    const attributes = (node[':@'] ?? {}) as Record<string, string>;
    const own = { ...scope };
    for (const [key, value] of Object.entries(attributes)) {
      if (key === 'xmlns') own[''] = value;
      else if (key.startsWith('xmlns:')) own[key.slice(6)] = value;
    }
    const colon = tag.indexOf(':');
    const prefix = colon < 0 ? '' : tag.slice(0, colon);
    const inner = (node[tag] ?? []) as RawNode[];
    elements.push({
      ns: own[prefix] ?? '',
      name: colon < 0 ? tag : tag.slice(colon + 1),
      attributes,
      children: toElements(inner, own),
      text: inner.map((child) => (typeof child['#text'] === 'string' ? child['#text'] : '')).join(''),
    });
  }
  return elements;
}

export const child = (element: XmlElement | undefined, ns: string, name: string) =>
  element?.children.find((c) => c.ns === ns && c.name === name);
export const childrenNamed = (element: XmlElement | undefined, ns: string, name: string) =>
  element?.children.filter((c) => c.ns === ns && c.name === name) ?? [];

/** A property's name, as asked for. */
export interface PropName {
  ns: string;
  name: string;
}

const PREFIXES: Record<string, string> = { [DAV]: 'D', [CARDDAV]: 'CR', [CALENDARSERVER]: 'CS' };

/** The opening of an element, declaring its namespace when it is not one of the usual three. */
export function tag(prop: PropName): { open: string; close: string; empty: string } {
  const prefix = PREFIXES[prop.ns];
  if (prefix) {
    return {
      open: `<${prefix}:${prop.name}>`,
      close: `</${prefix}:${prop.name}>`,
      empty: `<${prefix}:${prop.name}/>`,
    };
  }
  const ns = ` xmlns:X="${xmlText(prop.ns)}"`;
  return { open: `<X:${prop.name}${ns}>`, close: `</X:${prop.name}>`, empty: `<X:${prop.name}${ns}/>` };
}

/** The namespaces every answer's elements use. */
export const NAMESPACES = `xmlns:D="${DAV}" xmlns:CR="${CARDDAV}" xmlns:CS="${CALENDARSERVER}"`;

/**
 * One `<D:response>`: found properties (name → inner XML) and the names not found. Inside
 * multistatusXml the namespaces are declared once on the root; `standalone` declares them on the
 * response itself, for one added to another server's multistatus (directory-home.ts).
 */
export function responseXml(
  href: string,
  found: [PropName, string][],
  missing: PropName[],
  standalone = false,
): string {
  const parts = [`<D:response${standalone ? ` ${NAMESPACES}` : ''}><D:href>${xmlText(href)}</D:href>`];
  if (found.length > 0) {
    const props = found.map(([prop, inner]) => {
      const t = tag(prop);
      return inner === '' ? t.empty : `${t.open}${inner}${t.close}`;
    });
    parts.push(
      `<D:propstat><D:prop>${props.join('')}</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>`,
    );
  }
  if (missing.length > 0) {
    const props = missing.map((prop) => tag(prop).empty).join('');
    parts.push(
      `<D:propstat><D:prop>${props}</D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>`,
    );
  }
  parts.push('</D:response>');
  return parts.join('');
}

/** A member that is not there (multiget of an unknown card, sync-collection of a removed one). */
export const goneXml = (href: string) =>
  `<D:response><D:href>${xmlText(href)}</D:href><D:status>HTTP/1.1 404 Not Found</D:status></D:response>`;

export function multistatusXml(responses: string[], syncToken?: string): string {
  return [
    '<?xml version="1.0" encoding="utf-8"?>\n',
    `<D:multistatus ${NAMESPACES}>`,
    ...responses,
    syncToken === undefined ? '' : `<D:sync-token>${xmlText(syncToken)}</D:sync-token>`,
    '</D:multistatus>\n',
  ].join('');
}

/** A precondition's error body (RFC 4918 §16), e.g. `valid-sync-token`. */
export const errorXml = (ns: string, name: string) =>
  `<?xml version="1.0" encoding="utf-8"?>\n<D:error ${NAMESPACES}>${tag({ ns, name }).empty}</D:error>\n`;
