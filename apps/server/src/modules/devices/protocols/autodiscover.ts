import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { DeviceEndpoints } from '../device-endpoints.ts';
import { xmlElements } from './xml-text.ts';

/** Microsoft's Autodiscover "POX" (plain old XML) schemas: what Outlook sends, what it wants back. */
export const AUTODISCOVER_REQUEST_SCHEMA =
  'http://schemas.microsoft.com/exchange/autodiscover/outlook/requestschema/2006';
export const AUTODISCOVER_RESPONSE_SCHEMA =
  'http://schemas.microsoft.com/exchange/autodiscover/outlook/responseschema/2006a';
const AUTODISCOVER_ENVELOPE = 'http://schemas.microsoft.com/exchange/autodiscover/responseschema/2006';

export type AutodiscoverRequest =
  { ok: true; email: string; acceptableSchema: string | undefined } | { ok: false; problem: string };

/** An Autodiscover request is three elements deep; anything far deeper is not one, and costs work. */
export const AUTODISCOVER_MAX_DEPTH = 16;

/**
 * Element names become keys of the parsed objects: one an object already has (`__proto__`,
 * `constructor`, `toString`…) could reach its prototype or shadow its methods. The parser is told
 * to rename them (so it never meets them) and the first one is remembered, to refuse the request.
 */
const isObjectKey = (name: string) => name in Object.prototype || name === 'prototype';

function parseElements(xml: string): { document: unknown } | { problem: string } {
  let objectKey: string | undefined;
  const parser = new XMLParser({
    removeNSPrefix: true,
    ignoreAttributes: true,
    processEntities: false,
    parseTagValue: false,
    trimValues: true,
    maxNestedTags: AUTODISCOVER_MAX_DEPTH,
    transformTagName: (name) => {
      if (!isObjectKey(name)) return name;
      objectKey ??= name;
      return `#${name}`;
    },
  });
  let document: unknown;
  try {
    document = parser.parse(xml);
  } catch (error) {
    // What the parser refuses (too deep, a name it will not take) is the document's fault.
    const reason = error instanceof Error ? error.message : String(error);
    return {
      problem: /nested/i.test(reason)
        ? `The request nests elements more than ${AUTODISCOVER_MAX_DEPTH} deep`
        : `The request XML could not be read: ${reason}`,
    };
  }
  if (objectKey !== undefined) return { problem: `An element may not be named <${objectKey}>` };
  return { document };
}

/** A child element by name: own keys only, so nothing is read from a prototype. */
function child(node: unknown, name: string): unknown {
  return typeof node === 'object' && node !== null && Object.hasOwn(node, name)
    ? (node as Record<string, unknown>)[name]
    : undefined;
}

/**
 * `<Autodiscover><Request><EMailAddress>…` → the address, or what is wrong with the document in
 * words. Document types are refused outright: nothing here needs entities, and refusing them
 * keeps entity expansion out of reach.
 */
export function parseAutodiscoverRequest(xml: string): AutodiscoverRequest {
  if (xml.trim() === '') return { ok: false, problem: 'The request has no body: send the Autodiscover XML' };
  if (/<!DOCTYPE/i.test(xml)) return { ok: false, problem: 'A document type declaration is not accepted' };
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    return {
      ok: false,
      problem: `The request is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`,
    };
  }
  const parsed = parseElements(xml);
  if ('problem' in parsed) return { ok: false, problem: parsed.problem };
  const request = child(child(parsed.document, 'Autodiscover'), 'Request');
  if (request === undefined) {
    return { ok: false, problem: 'Expected <Autodiscover><Request>…</Request></Autodiscover>' };
  }
  // An empty element parses as its (empty) text, a repeated one as an array: neither is an address.
  const email = child(request, 'EMailAddress');
  if (typeof email !== 'string' || email === '') {
    return { ok: false, problem: 'The request has no <EMailAddress>' };
  }
  const schema = child(request, 'AcceptableResponseSchema');
  return { ok: true, email, acceptableSchema: typeof schema === 'string' ? schema : undefined };
}

/**
 * The Outlook (2006a) answer: one e-mail account with its IMAP and SMTP servers, then CalDAV and
 * CardDAV. The schema names no DAV types; Outlook skips protocols it does not know, and clients
 * that read Autodiscover for calendars (eM Client, as mailcow serves them) take the URL from
 * <Server>.
 */
export function autodiscoverXml(email: string, endpoints: DeviceEndpoints): string {
  const protocol = (type: string, s: DeviceEndpoints['imap']) => [
    '      <Protocol>',
    ...xmlElements('        ', {
      Type: type,
      Server: s.host,
      Port: s.port,
      DomainRequired: 'off',
      LoginName: email,
      SPA: 'off',
      SSL: 'on',
      AuthRequired: 'on',
      // SSL: TLS from the first byte; TLS: STARTTLS (the element overrides <SSL>).
      Encryption: s.security === 'SSL' ? 'SSL' : 'TLS',
      UsePOPAuth: type === 'SMTP' ? 'off' : undefined,
      SMTPLast: type === 'SMTP' ? 'off' : undefined,
    }),
    '      </Protocol>',
  ];
  const dav = (type: string, server = endpoints.davUrl) => [
    '      <Protocol>',
    ...xmlElements('        ', {
      Type: type,
      Server: server,
      DomainRequired: 'off',
      LoginName: email,
    }),
    '      </Protocol>',
  ];
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<Autodiscover xmlns="${AUTODISCOVER_ENVELOPE}">`,
    `  <Response xmlns="${AUTODISCOVER_RESPONSE_SCHEMA}">`,
    '    <Account>',
    ...xmlElements('      ', { AccountType: 'email', Action: 'settings' }),
    ...protocol('IMAP', endpoints.imap),
    ...protocol('SMTP', endpoints.smtp),
    ...dav('CalDAV'),
    ...dav('CardDAV'),
    // The organisation's directory alone, for clients that keep one address book per account. The
    // schema has no name for a protocol; the directory's principal gives it ("<Organisation> directory").
    "      <!-- The organisation's directory, read only, as an address book of its own -->",
    ...dav('CardDAV', endpoints.directoryUrl),
    '    </Account>',
    '  </Response>',
    '</Autodiscover>',
    '',
  ].join('\n');
}
