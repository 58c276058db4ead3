import type { DeviceEndpoints } from '../device-endpoints.ts';
import { xmlElements, xmlText } from './xml-text.ts';

/**
 * Thunderbird's autoconfig document (clientConfig 1.1, the format of Mozilla's ISPDB:
 * wiki.mozilla.org/Thunderbird:Autoconfiguration:ConfigFileFormat), for every address of one
 * domain: IMAP and submission at MAIL_HOST, and the format's `addressBook` (CardDAV) and
 * `calendar` (CalDAV) elements; a second `addressBook` is the organisation's directory alone. The user name is the placeholder %EMAILADDRESS%, which the client
 * fills in, so the document is the same whatever address was asked about.
 */
export function autoconfigXml(domain: string, endpoints: DeviceEndpoints): string {
  const user = '%EMAILADDRESS%';
  const server = (tag: string, type: string, s: DeviceEndpoints['imap']) => [
    `    <${tag} type="${type}">`,
    ...xmlElements('      ', {
      hostname: s.host,
      port: s.port,
      socketType: s.security,
      username: user,
      authentication: 'password-cleartext',
    }),
    `    </${tag}>`,
  ];
  const dav = (tag: string, type: string, serverURL = endpoints.davUrl) => [
    `  <${tag} type="${type}">`,
    ...xmlElements('    ', { username: user, authentication: 'http-basic', serverURL }),
    `  </${tag}>`,
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<clientConfig version="1.1">',
    `  <emailProvider id="${xmlText(domain)}">`,
    ...xmlElements('    ', { domain, displayName: domain, displayShortName: domain }),
    ...server('incomingServer', 'imap', endpoints.imap),
    ...server('outgoingServer', 'smtp', endpoints.smtp),
    '  </emailProvider>',
    ...dav('addressBook', 'carddav'),
    // The format gives an address book no name: the directory's principal names it ("<Organisation> directory").
    "  <!-- The organisation's directory, read only, as an address book of its own -->",
    ...dav('addressBook', 'carddav', endpoints.directoryUrl),
    ...dav('calendar', 'caldav'),
    '</clientConfig>',
    '',
  ].join('\n');
}
