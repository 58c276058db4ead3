/**
 * The organisation's address book as vCards (3.0, which every CardDAV client reads): one card per
 * active user with their name and addresses, and one per group address. UIDs are stable, so a
 * client that syncs again sees a changed card, not a new one.
 */
export interface DirectoryPerson {
  userId: string;
  firstName: string;
  lastName: string;
  email: string;
  aliases: string[];
}

export interface DirectoryGroupAddress {
  addressId: string;
  name: string;
  address: string;
}

/** RFC 6350 §3.4 (and 2426 for 3.0): backslash, comma, semicolon and line breaks are escaped. */
const text = (value: string) =>
  value.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/;/g, '\\;').replace(/\r?\n/g, '\\n');

const card = (lines: string[]) => ['BEGIN:VCARD', 'VERSION:3.0', ...lines, 'END:VCARD', ''].join('\r\n');

export function personCard(person: DirectoryPerson, organization: string): string {
  const name = `${person.firstName} ${person.lastName}`.trim() || person.email;
  return card([
    `UID:atrium-user-${person.userId}`,
    `FN:${text(name)}`,
    `N:${text(person.lastName)};${text(person.firstName)};;;`,
    `ORG:${text(organization)}`,
    `EMAIL;TYPE=INTERNET,WORK,PREF:${text(person.email)}`,
    ...person.aliases.map((alias) => `EMAIL;TYPE=INTERNET,WORK:${text(alias)}`),
  ]);
}

export function groupAddressCard(group: DirectoryGroupAddress, organization: string): string {
  return card([
    // A group may have several addresses: one card for each.
    `UID:atrium-address-${group.addressId}`,
    `FN:${text(group.name)}`,
    `N:${text(group.name)};;;;`,
    `ORG:${text(organization)}`,
    `EMAIL;TYPE=INTERNET,WORK:${text(group.address)}`,
    'NOTE:Group address',
  ]);
}
