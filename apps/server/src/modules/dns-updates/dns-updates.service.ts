import type { Config } from '../../config.ts';
import type { DnsUpdateSettings, SiteRecordTarget } from '../../dns-update-config.ts';
import { createDnsClient, type DnsClient } from '../../lib/dns.ts';
import type { DbOrTrx } from '../../db/database.ts';
import { enqueue } from '../jobs/jobs.repository.ts';
import type { DnsRecord, DnsUpdate, Prerequisite, RecordChange, RecordType } from './nsupdate.ts';

/** Keeps `<site>.<SITE_BASE_DOMAIN>` in step with the organisation that has that site name. */
export const SITE_RECORD_JOB = 'dns.site-record';
/** With the backoff of the job, about two hours of tries: a DNS server down for a while catches up. */
export const DNS_JOB_MAX_ATTEMPTS = 12;

export interface SiteRecordPayload {
  siteName: string;
}

/**
 * Queues the site record of `siteName` to be made to match the database: published while an
 * organisation has that site name, removed once none has. Call it in the transaction that
 * creates or deletes the organisation; nothing happens without DNS_UPDATE_SERVER. The job has
 * no organisation_id: deleting the organisation must not delete the job that removes its record.
 */
export async function queueSiteRecord(db: DbOrTrx, config: Config, siteName: string): Promise<void> {
  if (!config.dnsUpdate) return;
  const payload: SiteRecordPayload = { siteName };
  await enqueue(db, { kind: SITE_RECORD_JOB, payload, maxAttempts: DNS_JOB_MAX_ATTEMPTS });
}

/** Queries to the server that takes the updates: it is authoritative for the zone. */
export function updateServerDns(settings: DnsUpdateSettings, dnsTimeoutMs: number): DnsClient {
  const server = settings.host.includes(':')
    ? `[${settings.host}]:${settings.port}`
    : `${settings.host}:${settings.port}`;
  return createDnsClient({ dnsServers: [server], dnsTimeoutMs });
}

export function siteRecordName(config: Pick<Config, 'siteBaseDomain'>, siteName: string): string {
  return `${siteName}.${config.siteBaseDomain}`;
}

/** What Atrium writes at a site's name: a CNAME to the target, or the target's A/AAAA records. */
export function siteRecords(target: SiteRecordTarget): DnsRecord[] {
  return 'cname' in target
    ? [{ type: 'CNAME', value: target.cname }]
    : [
        ...target.ipv4.map((value): DnsRecord => ({ type: 'A', value })),
        ...target.ipv6.map((value): DnsRecord => ({ type: 'AAAA', value })),
      ];
}

/** The state a published site record is checked against: exactly `records` among CNAME, A, AAAA. */
export function siteRecordChange(name: string, records: DnsRecord[]): RecordChange {
  return { name, types: ['CNAME', 'A', 'AAAA'], records };
}

/**
 * Publishing a site record: only where the name is not in use at all (`prereq nxdomain`), so a
 * name the operator has (`proxy A …`, `intranet A` + `TXT`) is never replaced or added to. The
 * server checks this in the same message that adds the records: no race with the operator.
 */
export function sitePublishUpdate(name: string, records: DnsRecord[]): DnsUpdate {
  return { name, prerequisites: [{ kind: 'name-unused' }], add: records };
}

/**
 * Removing a site record: only Atrium's own records, and only while each of their RRsets is
 * exactly what Atrium writes (value-dependent prerequisites). A record the operator put at the
 * name since, or a different value, is left where it is.
 */
export function siteRemoveUpdate(name: string, records: DnsRecord[]): DnsUpdate {
  const types = [...new Set(records.map((r) => r.type))];
  const prerequisites = types.map((type: RecordType): Prerequisite => ({
    kind: 'rrset-is',
    type,
    values: records.filter((r) => r.type === type).map((r) => r.value),
  }));
  return { name, prerequisites, deleteRecords: records };
}
