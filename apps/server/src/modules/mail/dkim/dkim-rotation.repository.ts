import { sql } from 'kysely';
import type { DbOrTrx } from '../../../db/database.ts';
import type { DomainRow } from '../../domains/domains.repository.ts';

// Every function is scoped by organisation: another organisation's domain is simply not found.
// Each change is one UPDATE guarded by the state it expects, so two admins cannot interleave.

/** The UPDATE of one domain of the organisation. */
const updateDomain = (db: DbOrTrx, organizationId: string, domainId: string) =>
  db.updateTable('domains').where('organization_id', '=', organizationId).where('id', '=', domainId);

/**
 * A change of the published keys changes the records to publish: the stored look-up of the DNS
 * mapping no longer counts them, so the setup checklist asks for a new look-up.
 */
const RECORDS_UNCHECKED = { records_checked_at: null, records_total: null, records_ok: null } as const;

export function setNextKey(
  db: DbOrTrx,
  organizationId: string,
  domainId: string,
  key: { selector: string; privateKeyEnc: string; publicKey: string },
): Promise<DomainRow | undefined> {
  return updateDomain(db, organizationId, domainId)
    .set({
      dkim_next_selector: key.selector,
      dkim_next_private_key_enc: key.privateKeyEnc,
      dkim_next_public_key: key.publicKey,
      dkim_next_created_at: sql<Date>`now()`,
      ...RECORDS_UNCHECKED,
    })
    .where('dkim_next_selector', 'is', null)
    .where('dkim_previous_selector', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** The next key signs from now on; the current one stays published as the previous one. */
export function switchToNextKey(
  db: DbOrTrx,
  organizationId: string,
  domainId: string,
): Promise<DomainRow | undefined> {
  return updateDomain(db, organizationId, domainId)
    .set((eb) => ({
      dkim_previous_selector: eb.ref('dkim_selector'),
      dkim_previous_public_key: eb.ref('dkim_public_key'),
      dkim_selector: sql<string>`dkim_next_selector`,
      dkim_private_key_enc: sql<string>`dkim_next_private_key_enc`,
      dkim_public_key: sql<string>`dkim_next_public_key`,
      dkim_next_selector: null,
      dkim_next_private_key_enc: null,
      dkim_next_public_key: null,
      dkim_next_created_at: null,
      dkim_switched_at: sql<Date>`now()`,
    }))
    .where('dkim_next_selector', 'is not', null)
    .returningAll()
    .executeTakeFirst();
}

/** Stops publishing the previous key (nothing has signed with it since the switch). */
export function retirePreviousKey(
  db: DbOrTrx,
  organizationId: string,
  domainId: string,
): Promise<DomainRow | undefined> {
  return updateDomain(db, organizationId, domainId)
    .set({ dkim_previous_selector: null, dkim_previous_public_key: null, ...RECORDS_UNCHECKED })
    .where('dkim_previous_selector', 'is not', null)
    .returningAll()
    .executeTakeFirst();
}

/** Drops a next key that never signed (a rotation abandoned before the switch). */
export function discardNextKey(
  db: DbOrTrx,
  organizationId: string,
  domainId: string,
): Promise<DomainRow | undefined> {
  return updateDomain(db, organizationId, domainId)
    .set({
      dkim_next_selector: null,
      dkim_next_private_key_enc: null,
      dkim_next_public_key: null,
      dkim_next_created_at: null,
      ...RECORDS_UNCHECKED,
    })
    .where('dkim_next_selector', 'is not', null)
    .returningAll()
    .executeTakeFirst();
}
