import type { DnsRecord, MappingPurpose } from '@atrium/contracts/domains';
import type { Config } from '../../config.ts';
import { DAV_PORT, deviceEndpoints } from './device-endpoints.ts';
import { AUTOCONFIG_LABEL, AUTODISCOVER_LABEL } from './discovery.service.ts';

type DeviceRecord = DnsRecord & { purpose: MappingPurpose };

/**
 * The SRV records by which clients find the servers of an address's domain: IMAP and submission
 * (RFC 6186), CalDAV and CardDAV over https (RFC 6764). Value: `priority weight port target`.
 */
export function deviceSrvRecords(domain: string, config: Pick<Config, 'mailHost'>): DeviceRecord[] {
  const { mailHost, imap, smtp } = deviceEndpoints(config);
  const srv = (purpose: MappingPurpose, service: string, port: number): DeviceRecord => ({
    purpose,
    host: `_${service}._tcp.${domain}`,
    type: 'SRV',
    value: `0 1 ${port} ${mailHost}`,
  });
  return [
    srv('imaps', 'imaps', imap.port),
    srv('submission', 'submission', smtp.port),
    srv('caldavs', 'caldavs', DAV_PORT),
    srv('carddavs', 'carddavs', DAV_PORT),
  ];
}

/**
 * `autoconfig.<domain>` (Thunderbird) and `autodiscover.<domain>` (Outlook) point at the
 * organisation's site, which reaches Atrium like `apps.<domain>`; Atrium answers there.
 */
export function deviceNames(domain: string, siteHost: string): DeviceRecord[] {
  return [
    { purpose: 'autoconfig', host: `${AUTOCONFIG_LABEL}.${domain}`, type: 'CNAME', value: siteHost },
    { purpose: 'autodiscover', host: `${AUTODISCOVER_LABEL}.${domain}`, type: 'CNAME', value: siteHost },
  ];
}
