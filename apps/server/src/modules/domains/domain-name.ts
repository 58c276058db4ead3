import { isIP } from 'node:net';
import { domainToASCII, domainToUnicode } from 'node:url';

export type DomainNameResult = { ok: true; name: string } | { ok: false; problem: string };

const LDH = /^[a-z0-9-]+$/;
const MAX_NAME = 253;
const MAX_LABEL = 63;

/**
 * Normalises what an admin typed into the name DNS knows: IDNA to punycode, lowercase,
 * one trailing dot dropped. Each way of being wrong gets its own message, because the
 * admin has to know what to fix.
 */
export function normalizeDomainName(input: string, siteBaseDomain: string): DomainNameResult {
  const fail = (problem: string): DomainNameResult => ({ ok: false, problem });
  let raw = input.trim();
  if (raw === '') return fail('Enter a domain name, such as example.com');
  if (/\s/.test(raw)) return fail('A domain name cannot contain spaces');
  if (/[/@:?#]/.test(raw) && !isIP(raw.replace(/^\[|\]$/g, ''))) {
    return fail('Enter only the domain name, such as example.com, without http://, a path or an @');
  }
  if (raw.endsWith('.')) raw = raw.slice(0, -1);
  if (isIP(raw) || isIP(raw.replace(/^\[|\]$/g, ''))) {
    return fail('Enter a domain name, not an IP address');
  }
  if (raw.split('.').some((label) => label === '')) {
    return fail(
      'A domain name cannot have an empty label: remove the extra dot (two dots in a row, or a dot at the start)',
    );
  }
  // Checked before IDNA: the WHATWG host parser would read e.g. "1.2.3" as the address 1.2.0.3.
  if (/^(0x[0-9a-f]*|\d+)$/i.test(raw.split('.').at(-1)!)) {
    return fail('The last label of a domain cannot be a number; enter a domain name, not an IP address');
  }
  const ascii = domainToASCII(raw).toLowerCase();
  if (ascii === '') {
    return fail('This is not a valid domain name: it contains characters a domain name cannot have');
  }
  if (ascii.length > MAX_NAME) {
    return fail(`A domain name can be at most ${MAX_NAME} characters; this one has ${ascii.length}`);
  }
  const labels = ascii.split('.');
  if (ascii === 'localhost' || ascii.endsWith('.localhost')) {
    return fail('localhost cannot be used; enter a domain your organisation owns');
  }
  if (labels.length < 2)
    return fail('Enter a full domain name with at least two labels, such as example.com');
  for (const label of labels) {
    if (label.length > MAX_LABEL) {
      return fail(
        `Each label of a domain name can be at most ${MAX_LABEL} characters; "${shorten(label)}" has ${label.length}`,
      );
    }
    if (!LDH.test(label)) {
      return fail(
        `Use only letters, digits and hyphens in a domain name; "${shorten(label)}" has other characters`,
      );
    }
    if (label.startsWith('-') || label.endsWith('-')) {
      return fail(`A label cannot start or end with a hyphen: "${shorten(label)}"`);
    }
  }
  const base = siteBaseDomain.toLowerCase().replace(/\.$/, '');
  if (ascii === base || ascii.endsWith(`.${base}`)) {
    return fail(`Names under ${base} belong to this service; enter a domain your organisation owns`);
  }
  return { ok: true, name: ascii };
}

/** The name for people: punycode labels back in Unicode. */
export const displayDomainName = (ascii: string) => domainToUnicode(ascii) || ascii;

/**
 * A host name as a reverse proxy or DNS gives it (no user to explain anything to):
 * ASCII, lowercase, without a trailing dot; undefined when it is not a host name.
 */
export function canonicalHost(input: string): string | undefined {
  const trimmed = input.trim().replace(/\.$/, '');
  if (trimmed === '' || /[\s/@:?#]/.test(trimmed)) return undefined;
  const ascii = domainToASCII(trimmed).toLowerCase();
  return ascii === '' ? undefined : ascii;
}

const shorten = (label: string) => (label.length > 20 ? `${label.slice(0, 20)}…` : label);
