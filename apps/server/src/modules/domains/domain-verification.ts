import type { VerificationCheck } from '@atrium/contracts/domains';
import type { Config } from '../../config.ts';
import type { Db, DbOrTrx } from '../../db/database.ts';
import { recordActivity, type ActivityEntry } from '../activity/activity.repository.ts';
import { queueDkimTables } from '../mail/dkim/dkim-tables.job.ts';
import { notifyAdmins } from '../notifications/notify.ts';
import { refreshSetupReminder } from '../setup/setup.service.ts';
import { displayDomainName } from './domain-name.ts';
import {
  findDomain,
  hasPrimary,
  lockOrganization,
  nameAvailability,
  recordCheck,
  type DomainRow,
} from './domains.repository.ts';

export type Actor = ActivityEntry['actor'];

/** The console's domains list (seed spec route), opened from the notification. */
export const DOMAINS_PAGE = '/domain';

/**
 * Stores a check's outcome; when it verified a domain that was not verified yet, also makes
 * it primary if the organisation has none, records the activity, notifies the admins and
 * updates their "setup steps left" reminder —
 * all in one transaction, under the organisation's lock so only one domain can become the
 * first primary. Used by the Verify button and by the background job alike.
 * Returns undefined when the domain was deleted meanwhile.
 */
export async function storeCheck(
  deps: { db: Db; config: Pick<Config, 'mail'> },
  domain: Pick<DomainRow, 'id' | 'organization_id' | 'name'>,
  check: VerificationCheck,
  context: { actor: Actor; ip?: string | null },
): Promise<{ row: DomainRow; check: VerificationCheck } | undefined> {
  const { db, config } = deps;
  try {
    return await db.transaction().execute((trx) => storeInTransaction(trx, config, domain, check, context));
  } catch (error) {
    // Another organisation verified the same name between our check and our write.
    if (!isUniqueViolation(error) || check.outcome !== 'verified') throw error;
    const taken = takenElsewhere(domain.name, check);
    return db.transaction().execute((trx) => storeInTransaction(trx, config, domain, taken, context));
  }
}

async function storeInTransaction(
  trx: DbOrTrx,
  config: Pick<Config, 'mail'>,
  domain: Pick<DomainRow, 'id' | 'organization_id' | 'name'>,
  check: VerificationCheck,
  context: { actor: Actor; ip?: string | null },
): Promise<{ row: DomainRow; check: VerificationCheck } | undefined> {
  const organizationId = domain.organization_id;
  await lockOrganization(trx, organizationId);
  const current = await findDomain(trx, organizationId, domain.id, { forUpdate: true });
  if (!current) return undefined;
  const becomesVerified = check.outcome === 'verified' && current.state !== 'verified';
  if (!becomesVerified) {
    const row = await recordCheck(trx, organizationId, current.id, check, null);
    return row && { row, check };
  }
  const availability = await nameAvailability(trx, organizationId, current.name);
  if (availability.verifiedElsewhere || availability.parentVerifiedElsewhere) {
    const taken = takenElsewhere(current.name, check, availability.parentVerifiedElsewhere);
    const row = await recordCheck(trx, organizationId, current.id, taken, null);
    return row && { row, check: taken };
  }
  const makePrimary = !(await hasPrimary(trx, organizationId));
  const row = await recordCheck(trx, organizationId, current.id, check, { makePrimary });
  if (!row) return undefined;
  const shown = displayDomainName(row.name);
  await recordActivity(trx, {
    organizationId,
    actor: context.actor,
    action: 'domain.verified',
    target: { type: 'domain', id: row.id, label: shown },
    ip: context.ip ?? null,
    details: { by: context.actor ? 'verify button' : 'background check', primary: makePrimary },
  });
  await notifyAdmins(trx, {
    organizationId,
    kind: 'domain.verified',
    title: `${shown} is verified`,
    body: makePrimary
      ? 'It is now your primary domain. Publish the DNS mapping records to use it for mail and your site.'
      : 'Publish its DNS mapping records to use it for mail and your site.',
    link: DOMAINS_PAGE,
  });
  // A primary domain is a verified one, so without one this is the first verified domain: it
  // closes the setup step "verify" (maybe left for later), and the admins' reminder follows.
  if (makePrimary) await refreshSetupReminder(trx, organizationId);
  // Its mail is signed from now on: OpenDKIM's tables gain the domain.
  await queueDkimTables(trx, config);
  return { row, check };
}

/** The record was right, but a domain belongs to one organisation only; which one is not said. */
function takenElsewhere(name: string, check: VerificationCheck, underParent = false): VerificationCheck {
  return {
    ...check,
    outcome: 'mismatch',
    message: underParent
      ? `${displayDomainName(name)} is under a domain another organisation has verified; names under it belong to that organisation.`
      : `${displayDomainName(name)} has already been verified by another organisation. A domain can belong to only one organisation.`,
    found: [],
  };
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505';
}
