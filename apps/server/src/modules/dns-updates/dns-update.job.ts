import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { PermanentJobError, type JobContext, type JobWorker } from '../jobs/job-worker.ts';
import {
  SITE_RECORD_JOB,
  siteRecordName,
  siteRecords,
  updateServerDns,
  type SiteRecordPayload,
} from './dns-updates.service.ts';
import { DnsUpdateRefused, nsupdateProblem } from './nsupdate.ts';
import { publishSiteRecord, removeSiteRecord, SiteNameConflict } from './site-record-sync.ts';

/** 10 s, 20 s, 40 s… up to 30 minutes between tries. */
const BACKOFF = { baseMs: 10_000, capMs: 30 * 60_000 };

/**
 * The jobs that keep the operator's zone in step (RFC 2136 updates signed with TSIG). Each run
 * sends the wanted state of one name and then checks it with a query to the same server, so
 * running a job twice, or out of order with another for the same name, ends right. Site records
 * touch only names Atrium owns: added where the name is unused, removed only while they are
 * exactly Atrium's (see site-record-sync.ts).
 */
export function registerDnsUpdateJobs(
  worker: JobWorker,
  deps: { db: Db; config: Config; log: FastifyBaseLogger },
): void {
  const settings = deps.config.dnsUpdate;
  if (!settings) return;
  // Not a bad setting, so no refusal to start: the jobs wait (and retry) until it is installed.
  const problem = nsupdateProblem();
  if (problem) deps.log.error(`DNS_UPDATE_SERVER is set but ${problem}`);
  const dns = updateServerDns(settings, deps.config.dnsTimeoutMs);

  worker.register(
    SITE_RECORD_JOB,
    async (payload, context) => {
      const { siteName } = payload as SiteRecordPayload;
      // The database decides: an organisation created again under the name keeps its record.
      const organization = await deps.db
        .selectFrom('organizations')
        .select(['id', 'name'])
        .where('site_name', '=', siteName)
        .executeTakeFirst();
      const name = siteRecordName(deps.config, siteName);
      const records = siteRecords(settings.target);
      const work = organization
        ? () => publishSiteRecord(settings, dns, name, records)
        : () => removeSiteRecord(settings, dns, name, records, context.log);
      await reported(name, work, context, async (outcome) => {
        // A removed record's organisation is gone, and its activity log with it: the job row tells.
        if (!organization) return;
        await recordActivity(deps.db, {
          organizationId: organization.id,
          actor: null,
          action: outcome.ok ? 'dns.record_published' : 'dns.record_failed',
          target: { type: 'dns_record', id: name, label: name },
          details: outcome.ok ? { records } : { error: outcome.error },
        });
      });
    },
    { backoff: BACKOFF },
  );
}

type Outcome = { ok: true } | { ok: false; error: string };

/**
 * Runs one update and its check. A refusal (wrong key) or a name the operator owns ends the job
 * at once; anything else (server down, an answer that does not match yet) is retried. `report`
 * runs on success and when the job fails for good.
 */
async function reported(
  name: string,
  work: () => Promise<void>,
  { job, log }: JobContext,
  report: (outcome: Outcome) => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const permanent = error instanceof DnsUpdateRefused || error instanceof SiteNameConflict;
    if (permanent || job.attempts >= job.max_attempts) await report({ ok: false, error: message });
    throw permanent ? new PermanentJobError(message) : error;
  }
  log.info({ name }, 'DNS records updated');
  await report({ ok: true });
}
