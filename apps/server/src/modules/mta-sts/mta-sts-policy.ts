import { createHash } from 'node:crypto';
import type { DnsRecord, MappingPurpose } from '@atrium/contracts/domains';

/** `mta-sts.<domain>`: where sending servers fetch the policy over HTTPS (RFC 8461 §3.3). */
export const MTA_STS_LABEL = 'mta-sts';
export const MTA_STS_PATH = '/.well-known/mta-sts.txt';

export type MtaStsMode = 'testing' | 'enforce';

/**
 * How long senders keep a policy. Short while testing, so moving to `enforce` reaches them within
 * a day; a week once enforced (RFC 8461 §3.2 suggests weeks; a week still lets a broken host be
 * taken back to `testing` without stranding mail for long).
 */
export const MTA_STS_MAX_AGE: Record<MtaStsMode, number> = {
  testing: 24 * 60 * 60,
  enforce: 7 * 24 * 60 * 60,
};

export interface MtaStsPolicy {
  mode: MtaStsMode;
  /** The policy file as served: `key: value` lines ending in CRLF (RFC 8461 §3.2). */
  text: string;
  /** The `id` of the `_mta-sts` TXT record: changes whenever the text does. */
  id: string;
}

/** The one policy of every domain on this host: its mail goes to MAIL_HOST alone. */
export function mtaStsPolicy(mailHost: string, mode: MtaStsMode): MtaStsPolicy {
  const text = ['version: STSv1', `mode: ${mode}`, `mx: ${mailHost}`, `max_age: ${MTA_STS_MAX_AGE[mode]}`]
    .map((line) => `${line}\r\n`)
    .join('');
  // RFC 8461 §3.1: id is 1-32 letters and digits. A hash of the text, so senders fetch the policy
  // again exactly when it changed (mode, MAIL_HOST, max_age), with nothing stored.
  const id = createHash('sha256').update(text).digest('hex').slice(0, 20);
  return { mode, text, id };
}

type MtaStsRecord = DnsRecord & { purpose: MappingPurpose };

/**
 * The records that publish the policy and ask for TLS reports (RFC 8460): `_mta-sts` with the
 * policy's id, `_smtp._tls` with where reports go, and `mta-sts.<domain>` pointing at MAIL_HOST,
 * where Caddy serves Atrium with a certificate for the name. Reports go to postmaster@<domain>:
 * every mail domain must accept that address anyway (RFC 5321 §4.5.1), so one alias or catch-all
 * covers both, and no person's own address is published in DNS.
 */
export function mtaStsRecords(domain: string, mailHost: string, policy: MtaStsPolicy): MtaStsRecord[] {
  return [
    { purpose: 'mta_sts', host: `_mta-sts.${domain}`, type: 'TXT', value: `v=STSv1; id=${policy.id}` },
    {
      purpose: 'mta_sts_host',
      host: `${MTA_STS_LABEL}.${domain}`,
      type: 'CNAME',
      value: mailHost,
    },
    {
      purpose: 'tls_reports',
      host: `_smtp._tls.${domain}`,
      type: 'TXT',
      value: `v=TLSRPTv1; rua=mailto:postmaster@${domain}`,
    },
  ];
}
