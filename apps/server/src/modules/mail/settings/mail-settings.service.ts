import type { MailDomainsResponse } from '@atrium/contracts/mail-settings';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import type { DnsClient } from '../../../lib/dns.ts';
import { publishedDkimKeys } from '../../domains/dkim.ts';
import { checkMapping, expectedRecords } from '../../domains/dns-mapping.ts';
import { toDomainSummary } from '../../domains/domain-view.ts';
import { listDomains, organizationSiteName } from '../../domains/domains.repository.ts';
import { dkimStateOf } from '../dkim/dkim-rotation.service.ts';
import { mailServersLastAsked } from '../lookups/mail-server-contacts.ts';

const MAIL_PURPOSES = new Set(['mx', 'spf', 'dkim', 'dmarc']);

export function mailIsConfigured(config: Config): boolean {
  return Boolean(config.mail.socketmap && config.mail.dictSocket);
}

/**
 * Whether mail works for each verified domain of the organisation: the mail records of its DNS
 * mapping looked up now, every domain at once (the plan caps how many an organisation has).
 */
export async function mailDomains(
  deps: { db: Db; config: Config; dns: DnsClient },
  organizationId: string,
): Promise<MailDomainsResponse> {
  const [rows, siteName, mailServers] = await Promise.all([
    listDomains(deps.db, organizationId),
    organizationSiteName(deps.db, organizationId),
    mailServersLastAsked(deps.db),
  ]);
  const verified = rows.filter((row) => row.state === 'verified');
  const domains = await Promise.all(
    verified.map(async (row) => {
      const expected = expectedRecords(
        { name: row.name, dkimKeys: publishedDkimKeys(row), siteName },
        deps.config,
        // The MTA-STS records are not among the mail records filtered below: any mode will do.
        'testing',
      ).filter((record) => MAIL_PURPOSES.has(record.purpose));
      const records = await checkMapping(deps.dns, expected);
      return {
        domain: toDomainSummary(row),
        records,
        ready: records.every((r) => r.status === 'ok'),
        dkim: dkimStateOf(row),
      };
    }),
  );
  return {
    mailConfigured: mailIsConfigured(deps.config),
    mailHost: deps.config.mailHost,
    mailServers,
    domains,
    checkedAt: new Date().toISOString(),
  };
}
