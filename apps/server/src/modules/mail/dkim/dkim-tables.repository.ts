import type { DbOrTrx } from '../../../db/database.ts';

export interface SigningKeyRow {
  name: string;
  dkim_selector: string;
  dkim_private_key_enc: string;
}

/**
 * The key every verified domain signs with, for OpenDKIM's tables. Not scoped by organisation on
 * purpose: like Postfix's lookups, the signer serves every organisation's domains, and a verified
 * name belongs to one organisation only (domains_verified_name_unique).
 */
export function signingKeys(db: DbOrTrx): Promise<SigningKeyRow[]> {
  return db
    .selectFrom('domains')
    .select(['name', 'dkim_selector', 'dkim_private_key_enc'])
    .where('state', '=', 'verified')
    .orderBy('name')
    .execute();
}
