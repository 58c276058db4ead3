import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import type { DomainRow } from './domains.repository.ts';

// Deployment-wide on purpose: the background job serves every organisation.

export type ClaimedDomain = Pick<DomainRow, 'id' | 'organization_id' | 'name' | 'verification_token'>;

/**
 * Claims up to `limit` due pending domains for this process (call inside a transaction):
 * rows another process has locked are skipped, and the claimed ones are not due again until
 * `intervalMs` from now, so after the commit no other process picks them up either.
 */
export async function claimDueDomains(
  trx: DbOrTrx,
  limit: number,
  intervalMs: number,
): Promise<ClaimedDomain[]> {
  const due = await trx
    .selectFrom('domains')
    .select(['id', 'organization_id', 'name', 'verification_token'])
    .where('state', '=', 'pending')
    .where('next_check_at', '<=', sql<Date>`now()`)
    .orderBy('next_check_at')
    .orderBy('id')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
  if (due.length === 0) return [];
  await trx
    .updateTable('domains')
    .set({ next_check_at: sql<Date>`now() + make_interval(secs => ${intervalMs / 1000})` })
    .where(
      'id',
      'in',
      due.map((d) => d.id),
    )
    .execute();
  return due;
}

/**
 * Pending domains added more than `days` ago become failed, at most `limit` per call (oldest
 * first); rows another process is changing are skipped. Returns those that changed.
 */
export function expireStalePending(
  trx: DbOrTrx,
  days: number,
  limit: number,
): Promise<Array<Pick<DomainRow, 'id' | 'organization_id' | 'name'>>> {
  return trx
    .updateTable('domains')
    .set({ state: 'failed' })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('domains')
        .select('id')
        .where('state', '=', 'pending')
        .where('created_at', '<', sql<Date>`now() - make_interval(days => ${days})`)
        .orderBy('created_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returning(['id', 'organization_id', 'name'])
    .execute();
}
