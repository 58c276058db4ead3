import type { Db } from '../../db/database.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { canonicalHost } from '../domains/domain-name.ts';
import { isVerifiedDomain } from '../domains/proxy-hosts.repository.ts';

/** The names the DNS mapping points at the organisation's site for mail clients to find. */
export const AUTOCONFIG_LABEL = 'autoconfig';
export const AUTODISCOVER_LABEL = 'autodiscover';

/** `local@domain` → the domain as DNS knows it; undefined when it is not an address. */
export function addressDomain(address: string): string | undefined {
  const at = address.lastIndexOf('@');
  if (at < 1 || at === address.length - 1 || address.length > 320) return undefined;
  return canonicalHost(address.slice(at + 1));
}

/**
 * The domain a discovery request is about: the address's, or else the host's that was asked
 * (`autoconfig.<domain>`, `autodiscover.<domain>` or the domain itself).
 */
export function domainOfRequest(address: string | undefined, host: string | undefined): string | undefined {
  if (address !== undefined) {
    const domain = addressDomain(address.trim());
    if (!domain) throw badRequest('Give an e-mail address such as ada@example.com');
    return domain;
  }
  const name = host ? canonicalHost(host.replace(/:\d+$/, '')) : undefined;
  if (!name) return undefined;
  return name.replace(new RegExp(`^(${AUTOCONFIG_LABEL}|${AUTODISCOVER_LABEL})\\.`), '');
}

/**
 * Discovery answers only for a verified domain of some organisation, and the same for every
 * local part: whether a mailbox exists is never told (unknown and unverified domains are 404).
 */
export async function requireVerifiedMailDomain(db: Db, domain: string | undefined): Promise<string> {
  if (!domain || !(await isVerifiedDomain(db, [domain]))) throw notFound('Mail domain');
  return domain;
}
