import { randomUUID } from 'node:crypto';
import type { DeviceEndpoints } from '../device-endpoints.ts';
import { xmlText } from './xml-text.ts';

/** What Apple devices install a configuration profile as. */
export const MOBILECONFIG_TYPE = 'application/x-apple-aspen-config';

type PlistValue = string | number | boolean | PlistValue[] | { [key: string]: PlistValue };

/** A value as Apple's property list XML (DTD PropertyList-1.0). */
function plistValue(value: PlistValue, indent: string): string[] {
  if (typeof value === 'string') return [`${indent}<string>${xmlText(value)}</string>`];
  if (typeof value === 'number') return [`${indent}<integer>${value}</integer>`];
  if (typeof value === 'boolean') return [`${indent}<${value}/>`];
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    return [`${indent}<array>`, ...value.flatMap((item) => plistValue(item, inner)), `${indent}</array>`];
  }
  return [
    `${indent}<dict>`,
    ...Object.entries(value).flatMap(([key, item]) => [
      `${inner}<key>${xmlText(key)}</key>`,
      ...plistValue(item, inner),
    ]),
    `${indent}</dict>`,
  ];
}

export interface ProfileAccount {
  email: string;
  /** The user's name, shown as the sender's name in Mail. */
  displayName: string;
  organizationName: string;
  password: string;
}

/**
 * An Apple configuration profile with four accounts for one user: Mail (IMAP and submission),
 * CalDAV, CardDAV for the user's own contacts and CardDAV for the organisation's directory, all
 * signing in with the user's address and one app password. Every payload
 * has a fresh PayloadUUID; the identifiers are unique per profile, so installing the profile for
 * a second device never replaces the first one's.
 */
export function mobileconfigXml(account: ProfileAccount, endpoints: DeviceEndpoints): string {
  const profileId = randomUUID();
  const identifier = `${endpoints.mailHost.split('.').reverse().join('.')}.atrium.${profileId}`;
  const payload = (type: string, name: string, settings: Record<string, PlistValue>) => {
    const uuid = randomUUID();
    return {
      PayloadType: type,
      PayloadVersion: 1,
      PayloadIdentifier: `${identifier}.${type}.${uuid}`,
      PayloadUUID: uuid,
      PayloadDisplayName: name,
      ...settings,
    };
  };
  const { imap, smtp } = endpoints;
  const { dav } = endpoints;
  const who = `${account.email} (${account.organizationName})`;
  const directory = `${account.organizationName} directory`;
  const profile = {
    PayloadType: 'Configuration',
    PayloadVersion: 1,
    PayloadIdentifier: identifier,
    PayloadUUID: profileId,
    PayloadDisplayName: `${account.organizationName}: mail, calendar and contacts`,
    PayloadDescription: `Mail, calendars and contacts of ${account.email}, and the ${directory}, signing in with an app password.`,
    PayloadOrganization: account.organizationName,
    PayloadRemovalDisallowed: false,
    PayloadContent: [
      payload('com.apple.mail.managed', 'Mail', {
        EmailAccountDescription: who,
        EmailAccountName: account.displayName,
        EmailAccountType: 'EmailTypeIMAP',
        EmailAddress: account.email,
        IncomingMailServerAuthentication: 'EmailAuthPassword',
        IncomingMailServerHostName: imap.host,
        IncomingMailServerPortNumber: imap.port,
        IncomingMailServerUseSSL: true,
        IncomingMailServerUsername: account.email,
        IncomingPassword: account.password,
        OutgoingMailServerAuthentication: 'EmailAuthPassword',
        OutgoingMailServerHostName: smtp.host,
        OutgoingMailServerPortNumber: smtp.port,
        OutgoingMailServerUseSSL: true,
        OutgoingMailServerUsername: account.email,
        OutgoingPassword: account.password,
        OutgoingPasswordSameAsIncomingPassword: true,
      }),
      payload('com.apple.caldav.account', 'Calendar', {
        CalDAVAccountDescription: who,
        CalDAVHostName: dav.host,
        CalDAVPort: dav.port,
        CalDAVPrincipalURL: endpoints.davUrl,
        CalDAVUseSSL: true,
        CalDAVUsername: account.email,
        CalDAVPassword: account.password,
      }),
      payload('com.apple.carddav.account', 'Contacts', {
        CardDAVAccountDescription: who,
        CardDAVHostName: dav.host,
        CardDAVPort: dav.port,
        // The person's own address books only: the organisation's has the next account.
        CardDAVPrincipalURL: endpoints.contactsUrl,
        CardDAVUseSSL: true,
        CardDAVUsername: account.email,
        CardDAVPassword: account.password,
      }),
      // iOS and macOS sync one address book per CardDAV account: the organisation's gets its own,
      // whose principal lists it alone, so it never takes the place of the person's contacts.
      payload('com.apple.carddav.account', directory, {
        CardDAVAccountDescription: directory,
        CardDAVHostName: dav.host,
        CardDAVPort: dav.port,
        CardDAVPrincipalURL: endpoints.directoryUrl,
        CardDAVUseSSL: true,
        CardDAVUsername: account.email,
        CardDAVPassword: account.password,
      }),
    ],
  };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    ...plistValue(profile, ''),
    '</plist>',
    '',
  ].join('\n');
}
