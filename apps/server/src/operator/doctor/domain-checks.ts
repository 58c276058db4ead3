import type { DnsMappingRecord } from '@atrium/contracts/domains';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { DnsClient } from '../../lib/dns.ts';
import { publishedDkimKeys } from '../../modules/domains/dkim.ts';
import { checkMapping, expectedRecords } from '../../modules/domains/dns-mapping.ts';
import { displayDomainName } from '../../modules/domains/domain-name.ts';
import { fail, pass, type Check } from './check.ts';

/** The mail records of the DNS mapping (the site record is the organisation's own business). */
const MAIL_PURPOSES = new Set(['mx', 'spf', 'dkim', 'dmarc']);
/** Lookups in flight at once across domains: a deployment with hundreds must not flood its resolver. */
const DOMAINS_AT_ONCE = 8;

const LABEL: Record<string, string> = { mx: 'MX', spf: 'SPF', dkim: 'DKIM', dmarc: 'DMARC' };

/** Every verified domain of every organisation, with what the DNS mapping expects of it. */
async function verifiedDomains(db: Db) {
  return db
    .selectFrom('domains as d')
    .innerJoin('organizations as o', 'o.id', 'd.organization_id')
    .selectAll('d')
    .select('o.site_name')
    .where('d.state', '=', 'verified')
    .orderBy('d.name')
    .execute();
}

/**
 * One line per verified domain: its MX, DKIM and DMARC records as published, compared with what
 * its DNS mapping expects, and its SPF evaluated as a receiver would for mail from MAIL_HOST's
 * addresses (the same code as the Domains page and Mail Settings, through the resolver DNS_SERVERS
 * names). The fix is the record to publish: for SPF that may be MAIL_HOST's own record.
 */
export async function domainChecks(deps: {
  db: Db;
  config: Pick<Config, 'mailHost' | 'siteBaseDomain'>;
  dns: DnsClient;
}): Promise<Check[]> {
  let rows: Awaited<ReturnType<typeof verifiedDomains>>;
  try {
    rows = await verifiedDomains(deps.db);
  } catch (error) {
    const message = (error as Error).message.split('\n')[0];
    return [
      {
        name: 'Domains',
        run: async () => fail(`cannot be listed: ${message}`, 'mend the database first (above)'),
      },
    ];
  }
  if (rows.length === 0) {
    return [{ name: 'Domains', run: async () => pass('no verified domain yet: nothing to look up') }];
  }
  // At most DOMAINS_AT_ONCE domains' lookups at a time: each starts once the one that many places
  // before it has finished. (The DNS client never rejects; the catch keeps a surprise handled.)
  const results: Array<Promise<DnsMappingRecord[]>> = [];
  rows.forEach((row, i) => {
    const turn =
      i < DOMAINS_AT_ONCE
        ? Promise.resolve()
        : results[i - DOMAINS_AT_ONCE]!.then(
            () => undefined,
            () => undefined,
          );
    const result = turn.then(() =>
      checkMapping(
        deps.dns,
        expectedRecords(
          { name: row.name, dkimKeys: publishedDkimKeys(row), siteName: row.site_name },
          deps.config,
          // The MTA-STS records are not among the mail records filtered below: any mode will do.
          'testing',
        ).filter((record) => MAIL_PURPOSES.has(record.purpose)),
      ),
    );
    result.catch(() => undefined);
    results.push(result);
  });
  return rows.map((row, i) => ({
    name: `Domain ${displayDomainName(row.name)}`,
    async run() {
      const records = await results[i]!;
      const wrong = records.filter((r) => r.status !== 'ok');
      if (wrong.length === 0) {
        return pass(
          `MX, DKIM and DMARC published as expected; SPF passes for mail from ${deps.config.mailHost}`,
        );
      }
      const what = wrong.map((r) => `${LABEL[r.purpose]} ${describeStatus(r)}`).join('; ');
      return fail(what, wrong.map((r) => describeFix(r, deps.config.mailHost)).join('; '));
    },
  }));
}

function describeStatus(record: DnsMappingRecord): string {
  switch (record.status) {
    case 'missing':
      return `missing at ${record.host}`;
    case 'different':
      return `different at ${record.host} (found ${record.found.map((v) => `"${v}"`).join(', ')})`;
    case 'does_not_pass':
      return `does not pass at ${record.host}: ${record.problem}`;
    default:
      return `not looked up at ${record.host}: ${record.problem ?? 'the lookup failed'}`;
  }
}

function describeFix(record: DnsMappingRecord, mailHost: string): string {
  const publish = record.fix ?? record;
  if (record.status === 'does_not_pass' && !record.fix) {
    return `make the SPF record at ${record.host}. pass for mail from ${mailHost} (why above)`;
  }
  return `publish ${publish.host}. ${publish.type} "${publish.value}"`;
}
