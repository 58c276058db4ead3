import type {
  DeletionCheck,
  DnsMapping,
  DomainDetail,
  DomainList,
  MappingPurpose,
  VerifyDomainResponse,
} from '@atrium/contracts/domains';
import type { Config } from '../../config.ts';
import type { Db, DbOrTrx } from '../../db/database.ts';
import type { Actor } from '../organizations/actor.ts';
import { randomBase32 } from '../../lib/crypto.ts';
import type { DnsClient } from '../../lib/dns.ts';
import { conflict, fieldError, notFound } from '../../lib/errors.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { queueDkimTables } from '../mail/dkim/dkim-tables.job.ts';
import { planCatalogOf } from '../subscriptions/plan-catalog.ts';
import { assertDomainAllowed } from '../subscriptions/subscription-limits.ts';
import { findSubscription } from '../subscriptions/subscriptions.repository.ts';
import { mtaStsMode } from '../mta-sts/mail-certificate-seen.ts';
import { checkMapping, expectedRecords } from './dns-mapping.ts';
import { generateDkimKey, publishedDkimKeys } from './dkim.ts';
import { displayDomainName, normalizeDomainName } from './domain-name.ts';
import { storeCheck } from './domain-verification.ts';
import { toDomainDetail, toDomainSummary } from './domain-view.ts';
import { checkVerificationRecord } from './verification-check.ts';
import { zoneFile } from './zone-file.ts';
import * as repo from './domains.repository.ts';

export interface DomainsDeps {
  db: Db;
  config: Pick<
    Config,
    | 'secret'
    | 'siteBaseDomain'
    | 'mailHost'
    | 'maxDomainsPerOrganization'
    | 'domainRecheckIntervalMs'
    | 'planCatalog'
    | 'appCatalog'
    | 'subscriptionWebhook'
    | 'mail'
    | 'dataDir'
  >;
  dns: DnsClient;
}

/** The signed-in admin; every operation is confined to their organisation. */

const DELETION_USERS_SHOWN = 50;

export async function listDomains(deps: DomainsDeps, caller: Actor): Promise<DomainList> {
  const rows = await repo.listDomains(deps.db, caller.organizationId);
  const subscription = await findSubscription(deps.db, caller.organizationId);
  const catalog = planCatalogOf(deps.config);
  const plan = subscription ? catalog.planOf(subscription.plan_key) : catalog.defaultPlan;
  return {
    domains: rows.map(toDomainSummary),
    limit: Math.min(deps.config.maxDomainsPerOrganization, plan.maxDomains),
  };
}

export async function getDomain(deps: DomainsDeps, caller: Actor, id: string): Promise<DomainDetail> {
  return toDomainDetail(await mustFind(deps.db, caller, id));
}

export async function addDomain(deps: DomainsDeps, caller: Actor, input: string): Promise<DomainDetail> {
  const normalized = normalizeDomainName(input, deps.config.siteBaseDomain);
  if (!normalized.ok) throw fieldError('name', normalized.problem);
  const name = normalized.name;
  // RSA generation takes a moment; do it before taking the organisation's lock.
  const dkim = await generateDkimKey(deps.config.secret);
  const row = await deps.db.transaction().execute(async (trx) => {
    await repo.lockOrganization(trx, caller.organizationId);
    const { count, ownExists, verifiedElsewhere, parentVerifiedElsewhere } = await repo.nameAvailability(
      trx,
      caller.organizationId,
      name,
    );
    if (ownExists)
      throw fieldError('name', `${displayDomainName(name)} has already been added`, 'domain_exists');
    if (verifiedElsewhere) {
      throw fieldError(
        'name',
        `${displayDomainName(name)} is already verified by another organisation; a domain can belong to only one organisation`,
        'domain_taken',
      );
    }
    if (parentVerifiedElsewhere) {
      throw fieldError(
        'name',
        `${displayDomainName(name)} is under a domain another organisation has verified; names under it belong to that organisation`,
        'domain_taken',
      );
    }
    const limit = deps.config.maxDomainsPerOrganization;
    if (count >= limit) {
      throw conflict(
        `Your organisation already has ${count} domains, the most allowed (${limit}). Delete one first.`,
        undefined,
        'domain_limit',
      );
    }
    // The server's cap above, the plan's here (with the subscription locked, as for seats).
    await assertDomainAllowed(trx, deps.config, caller.organizationId, count);
    const inserted = await repo.insertDomain(trx, caller.organizationId, {
      name,
      verificationToken: randomBase32(32),
      dkimPrivateKeyEnc: dkim.privateKeyEnc,
      dkimPublicKey: dkim.publicKey,
      firstCheckInMs: deps.config.domainRecheckIntervalMs,
    });
    await recordActivity(trx, {
      organizationId: caller.organizationId,
      actor: await repo.findActor(trx, caller.organizationId, caller.userId),
      action: 'domain.added',
      target: { type: 'domain', id: inserted.id, label: displayDomainName(name) },
      ip: caller.ip,
    });
    return inserted;
  });
  return toDomainDetail(row);
}

export async function verifyDomain(
  deps: DomainsDeps,
  caller: Actor,
  id: string,
): Promise<VerifyDomainResponse> {
  const row = await mustFind(deps.db, caller, id);
  if (row.state === 'verified') {
    const domain = toDomainDetail(row);
    return {
      domain,
      check: {
        outcome: 'verified',
        message: `${domain.displayName} is already verified.`,
        found: [],
        failure: null,
        checkedAt: row.verified_at?.toISOString() ?? new Date().toISOString(),
      },
    };
  }
  const check = await checkVerificationRecord(deps.dns, row);
  const stored = await storeCheck(deps, row, check, {
    actor: await repo.findActor(deps.db, caller.organizationId, caller.userId),
    ip: caller.ip,
  });
  if (!stored) throw notFound('Domain');
  return { domain: toDomainDetail(stored.row), check: stored.check };
}

export async function makePrimary(deps: DomainsDeps, caller: Actor, id: string): Promise<DomainDetail> {
  const row = await deps.db.transaction().execute(async (trx) => {
    await repo.lockOrganization(trx, caller.organizationId);
    const current = await mustFind(trx, caller, id);
    if (current.state !== 'verified') {
      throw conflict(
        `Verify ${displayDomainName(current.name)} before making it the primary domain`,
        undefined,
        'domain_not_verified',
      );
    }
    if (current.is_primary) return current;
    const updated = (await repo.setPrimary(trx, caller.organizationId, id))!;
    await recordActivity(trx, {
      organizationId: caller.organizationId,
      actor: await repo.findActor(trx, caller.organizationId, caller.userId),
      action: 'domain.primary_changed',
      target: { type: 'domain', id, label: displayDomainName(updated.name) },
      ip: caller.ip,
    });
    return updated;
  });
  return toDomainDetail(row);
}

export async function dnsMapping(deps: DomainsDeps, caller: Actor, id: string): Promise<DnsMapping> {
  const { row, expected } = await mappingOf(deps, caller, id);
  const records = await checkMapping(deps.dns, expected);
  const checkedAt = new Date();
  // Kept for the setup checklist ("Publish your mail records"). A look-up that failed (a DNS
  // timeout) says nothing about what is published, so it leaves the last conclusive one in place.
  if (!records.some((record) => record.status === 'lookup_failed')) {
    const ok = records.filter((record) => record.status === 'ok').length;
    await repo.saveRecordsCheck(deps.db, caller.organizationId, row.id, {
      total: records.length,
      ok,
      checkedAt,
    });
  }
  return { domain: toDomainSummary(row), records, checkedAt: checkedAt.toISOString() };
}

/** What each line of the zone file is for, written above it. */
const ZONE_COMMENTS: Record<MappingPurpose, string> = {
  mx: 'Mail exchanger: delivers mail for the domain to the mail service',
  spf: 'SPF: lets the mail service send mail for the domain',
  dkim: 'DKIM key: receivers check the signature of outgoing mail with it',
  dmarc: 'DMARC policy: what receivers do with mail that fails the checks',
  site: "Site: the organisation's site at this name",
  imaps: 'IMAP server, for mail apps (RFC 6186)',
  submission: 'Sending server, for mail apps (RFC 6186)',
  caldavs: 'Calendar server (RFC 6764)',
  carddavs: 'Contacts server (RFC 6764)',
  autoconfig: 'Thunderbird set-up',
  autodiscover: 'Outlook set-up',
  mta_sts: 'MTA-STS: the id of the policy served at mta-sts.<domain> (RFC 8461)',
  mta_sts_host: 'MTA-STS: the host that serves the policy over HTTPS',
  tls_reports: 'TLS reports: where receivers send reports of failed TLS deliveries (RFC 8460)',
};

/**
 * The DNS mapping as a zone-file fragment, with the ownership TXT record first: the records the
 * domain page lists, without looking anything up. Verified domains only, like the mapping.
 */
export async function domainZoneFile(
  deps: DomainsDeps,
  caller: Actor,
  id: string,
): Promise<{ name: string; text: string }> {
  const { row, expected } = await mappingOf(deps, caller, id);
  const verification = toDomainDetail(row).verificationRecord;
  const text = zoneFile(row.name, [
    { ...verification, comment: 'Ownership: proves the organisation holds the domain' },
    ...expected.map((record) => ({
      host: record.host,
      type: record.type,
      value: record.value,
      comment: ZONE_COMMENTS[record.purpose],
    })),
  ]);
  return { name: row.name, text };
}

async function mappingOf(deps: DomainsDeps, caller: Actor, id: string) {
  const row = await mustFind(deps.db, caller, id);
  if (row.state !== 'verified') {
    throw conflict(
      `Verify ${displayDomainName(row.name)} first: the DNS mapping is for verified domains`,
      undefined,
      'domain_not_verified',
    );
  }
  const [siteName, mode] = await Promise.all([
    repo.organizationSiteName(deps.db, caller.organizationId),
    mtaStsMode(deps.config),
  ]);
  const expected = expectedRecords(
    { name: row.name, dkimKeys: publishedDkimKeys(row), siteName },
    deps.config,
    mode,
  );
  return { row, expected };
}

export async function deletionCheck(deps: DomainsDeps, caller: Actor, id: string): Promise<DeletionCheck> {
  const row = await mustFind(deps.db, caller, id);
  return checkDeletion(deps.db, caller.organizationId, row);
}

export async function deleteDomain(deps: DomainsDeps, caller: Actor, id: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await repo.lockOrganization(trx, caller.organizationId);
    const row = await repo.findDomain(trx, caller.organizationId, id, { forUpdate: true });
    if (!row) throw notFound('Domain');
    const check = await checkDeletion(trx, caller.organizationId, row);
    if (!check.allowed) {
      throw conflict(check.reasons.map((r) => r.message).join(' '), undefined, 'domain_in_use');
    }
    // The DKIM private key lives in the row, so it goes with it.
    await repo.deleteDomain(trx, caller.organizationId, id);
    // Its key leaves OpenDKIM's tables too.
    if (row.state === 'verified') await queueDkimTables(trx, deps.config);
    await recordActivity(trx, {
      organizationId: caller.organizationId,
      actor: await repo.findActor(trx, caller.organizationId, caller.userId),
      action: 'domain.deleted',
      target: { type: 'domain', id, label: displayDomainName(row.name) },
      ip: caller.ip,
    });
  });
}

async function checkDeletion(
  db: DbOrTrx,
  organizationId: string,
  row: repo.DomainRow,
): Promise<DeletionCheck> {
  const shown = displayDomainName(row.name);
  const { users, total } = await repo.usersOnDomain(db, organizationId, row.name, DELETION_USERS_SHOWN);
  const otherVerified = row.is_primary ? await repo.countOtherVerified(db, organizationId, row.id) : 0;
  const reasons: DeletionCheck['reasons'] = [];
  if (total > 0) {
    const listed = users
      .slice(0, 5)
      .map((u) => u.email)
      .join(', ');
    const more = total > 5 ? ` and ${total - 5} more` : '';
    reasons.push({
      code: 'users',
      message: `${shown} cannot be deleted while ${total === 1 ? 'a user’s address uses' : `${total} users’ addresses use`} it: ${listed}${more}. Change or remove ${total === 1 ? 'that address' : 'those addresses'} first.`,
    });
  }
  if (row.is_primary && otherVerified > 0) {
    reasons.push({
      code: 'primary',
      message: `${shown} is your primary domain. Make another verified domain primary first.`,
    });
  }
  return { allowed: reasons.length === 0, reasons, users, userCount: total };
}

async function mustFind(db: DbOrTrx, caller: Actor, id: string): Promise<repo.DomainRow> {
  const row = await repo.findDomain(db, caller.organizationId, id);
  if (!row) throw notFound('Domain');
  return row;
}
