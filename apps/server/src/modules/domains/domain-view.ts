import {
  DOMAIN_RECHECK_DAYS,
  DOMAIN_VERIFICATION_PREFIX,
  verificationCheckSchema,
  type DomainDetail,
  type DomainSummary,
  type VerificationCheck,
} from '@atrium/contracts/domains';
import { displayDomainName } from './domain-name.ts';
import type { DomainRow } from './domains.repository.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A stored check is jsonb; anything that does not parse is shown as "not checked yet". */
function storedCheck(value: unknown): VerificationCheck | null {
  const parsed = verificationCheckSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

export function toDomainSummary(row: DomainRow): DomainSummary {
  return {
    id: row.id,
    name: row.name,
    displayName: displayDomainName(row.name),
    state: row.state,
    isPrimary: row.is_primary,
    createdAt: row.created_at.toISOString(),
    verifiedAt: row.verified_at?.toISOString() ?? null,
    lastCheckedAt: row.last_checked_at?.toISOString() ?? null,
    lastCheck: storedCheck(row.last_check),
  };
}

export function toDomainDetail(row: DomainRow): DomainDetail {
  return {
    ...toDomainSummary(row),
    verificationRecord: {
      host: row.name,
      type: 'TXT',
      value: `${DOMAIN_VERIFICATION_PREFIX}${row.verification_token}`,
    },
    recheckUntil: recheckUntil(row.created_at).toISOString(),
  };
}

export const recheckUntil = (createdAt: Date) => new Date(createdAt.getTime() + DOMAIN_RECHECK_DAYS * DAY_MS);
