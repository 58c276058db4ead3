import { generateDkimKey } from '../../src/modules/domains/dkim.ts';
import type { Db } from '../../src/db/database.ts';

/** A verified domain with a real DKIM key (selector `atrium`), as verifying one leaves it; returns the public key. */
export async function insertVerifiedDomainWithKey(
  db: Db,
  organizationId: string,
  name: string,
  secret: string,
): Promise<string> {
  const key = await generateDkimKey(secret);
  await db
    .insertInto('domains')
    .values({
      organization_id: organizationId,
      name,
      state: 'verified',
      verification_token: 'token',
      dkim_private_key_enc: key.privateKeyEnc,
      dkim_public_key: key.publicKey,
      dkim_selector: 'atrium',
    })
    .execute();
  return key.publicKey;
}
