import type { Atrium } from './fixtures.ts';

/**
 * Puts a verified domain `name` straight into the organisation's database (no DNS round): with
 * `primary`, as the organisation's primary domain, verified now. Returns the domain's id.
 */
export async function insertVerifiedDomain(
  atrium: Pick<Atrium, 'db'>,
  organizationId: string,
  name: string,
  options: { token?: string; primary?: boolean } = {},
): Promise<{ id: string }> {
  return atrium.db
    .insertInto('domains')
    .values({
      organization_id: organizationId,
      name,
      state: 'verified',
      ...(options.primary ? { is_primary: true, verified_at: new Date() } : {}),
      verification_token: (options.token ?? 'e2e').padEnd(32, 'x'),
      dkim_private_key_enc: 'sealed',
      dkim_public_key: 'public',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}
