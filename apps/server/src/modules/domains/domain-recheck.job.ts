import type { FastifyBaseLogger } from 'fastify';
import { DOMAIN_RECHECK_DAYS } from '@atrium/contracts/domains';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { DnsClient } from '../../lib/dns.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { notifyAdmins } from '../notifications/notify.ts';
import { displayDomainName } from './domain-name.ts';
import { claimDueDomains, expireStalePending } from './domain-recheck.repository.ts';
import { DOMAINS_PAGE, storeCheck } from './domain-verification.ts';
import { checkVerificationRecord } from './verification-check.ts';

/** Domains checked per run; the rest wait for the next run (they stay due). */
const BATCH_SIZE = 25;

export interface DomainRecheckJob {
  /** One pass: give up on domains pending for too long, then check the due ones. */
  runOnce(): Promise<{ checked: number; verified: number; failed: number }>;
  start(): void;
  /** Stops the timer and waits for a pass in progress, so the database can close after it. */
  stop(): Promise<void>;
}

/**
 * Re-checks pending domains in the background. Safe with several server processes on one
 * database: a domain is claimed with FOR UPDATE SKIP LOCKED and its next check moved forward in
 * the same transaction, so another process neither waits for it nor checks it again before its
 * time. DNS is asked after that transaction, so no row lock is held across network waits.
 */
export function createDomainRecheckJob(deps: {
  db: Db;
  config: Pick<Config, 'domainRecheckIntervalMs' | 'mail'>;
  dns: DnsClient;
  log: FastifyBaseLogger;
}): DomainRecheckJob {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  async function runOnce() {
    const failed = await failStale(deps.db);
    const claimed = await deps.db
      .transaction()
      .execute((trx) => claimDueDomains(trx, BATCH_SIZE, deps.config.domainRecheckIntervalMs));
    const checks = await Promise.all(claimed.map((domain) => checkVerificationRecord(deps.dns, domain)));
    let verified = 0;
    // One transaction per domain: each verification is its own change (primary, activity,
    // notification), and one domain's failure must not undo another's.
    for (const [i, domain] of claimed.entries()) {
      const stored = await storeCheck(deps, domain, checks[i]!, { actor: null });
      if (stored?.row.state === 'verified' && stored.check.outcome === 'verified') verified++;
    }
    return { checked: claimed.length, verified, failed };
  }

  function tick() {
    if (running) return; // a slow pass is still going; skip rather than pile up
    running = runOnce()
      .then((result) => {
        if (result.checked || result.failed) deps.log.info({ ...result }, 'domain re-check');
      })
      .catch((error: unknown) => deps.log.error({ err: error }, 'domain re-check failed'))
      .finally(() => {
        running = undefined;
      });
  }

  return {
    runOnce,
    start() {
      timer ??= setInterval(tick, deps.config.domainRecheckIntervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}

/** Pending for longer than the re-check window: mark failed and tell the admins, once each. */
async function failStale(db: Db): Promise<number> {
  return db.transaction().execute(async (trx) => {
    // SKIP LOCKED decides which process fails which domain, so each is failed (and announced) once.
    const expired = await expireStalePending(trx, DOMAIN_RECHECK_DAYS, BATCH_SIZE);
    // Two statements per failed domain, at most BATCH_SIZE of them: the shared helpers write one
    // organisation's activity and notifications at a time.
    for (const domain of expired) {
      const shown = displayDomainName(domain.name);
      await recordActivity(trx, {
        organizationId: domain.organization_id,
        actor: null,
        action: 'domain.failed',
        target: { type: 'domain', id: domain.id, label: shown },
        details: { reason: `not verified within ${DOMAIN_RECHECK_DAYS} days` },
      });
      await notifyAdmins(trx, {
        organizationId: domain.organization_id,
        kind: 'domain.failed',
        title: `${shown} could not be verified`,
        body: `Its TXT record was not found within ${DOMAIN_RECHECK_DAYS} days. Check the record and press Verify, or delete the domain.`,
        link: DOMAINS_PAGE,
      });
    }
    return expired.length;
  });
}
