import type { FastifyBaseLogger } from 'fastify';
import type { DnsUpdateSettings } from '../../dns-update-config.ts';
import type { DnsClient } from '../../lib/dns.ts';
import { changeProblem, describeRecords, holdsExactly, recordsAt } from './dns-update-check.ts';
import { sitePublishUpdate, siteRecordChange, siteRemoveUpdate } from './dns-updates.service.ts';
import { DnsPrerequisiteFailed, sendUpdate, type DnsRecord } from './nsupdate.ts';

/** The site's name holds records Atrium did not add: they stay, and retrying cannot change that. */
export class SiteNameConflict extends Error {}

/**
 * Publishes the site record where the name is not in use. When it is (the server answers
 * YXDOMAIN and changes nothing), what is there decides: exactly Atrium's records (a job run
 * twice) is done; anything else is the operator's, left alone, and the job fails for good.
 */
export async function publishSiteRecord(
  settings: DnsUpdateSettings,
  dns: DnsClient,
  name: string,
  records: DnsRecord[],
): Promise<void> {
  try {
    await sendUpdate(settings, sitePublishUpdate(name, records));
  } catch (error) {
    if (!(error instanceof DnsPrerequisiteFailed)) throw error;
    const found = await recordsAt(dns, name);
    if (!holdsExactly(found, records)) {
      const held = found.length > 0 ? describeRecords(found) : 'records of other types';
      throw new SiteNameConflict(
        `${name} already exists in the zone ${settings.zone} with records Atrium did not add (${held}): ` +
          "Atrium leaves them as they are, so the organisation's site record was not published",
      );
    }
  }
  const problem = await changeProblem(dns, siteRecordChange(name, records));
  if (problem) throw new Error(`The update of ${name} was sent but ${problem}`);
}

/**
 * Removes the site record only while the name holds exactly what Atrium wrote there. If it does
 * not (already removed, or the operator has put something else there since), nothing is deleted.
 */
export async function removeSiteRecord(
  settings: DnsUpdateSettings,
  dns: DnsClient,
  name: string,
  records: DnsRecord[],
  log: FastifyBaseLogger,
): Promise<void> {
  try {
    await sendUpdate(settings, siteRemoveUpdate(name, records));
  } catch (error) {
    if (!(error instanceof DnsPrerequisiteFailed)) throw error;
    log.info({ name }, "The site record is no longer Atrium's (removed or changed since): left as it is");
    return;
  }
  const found = await recordsAt(dns, name);
  if (holdsExactly(found, records)) {
    throw new Error(
      `The removal of ${name} was sent but the DNS server still answers ${describeRecords(found)}`,
    );
  }
}
