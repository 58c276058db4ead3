import type { DbOrTrx } from '../../db/database.ts';

export interface WebmailAppRow {
  app_id: string;
  organization_id: string;
  template_key: string;
  launch_url: string;
  client_id: string;
  client_secret_enc: string | null;
  site_name: string;
}

/**
 * Every installed Mail app with its client's sealed secret and its organisation's site name,
 * oldest first (the first app of a host wins it). Not scoped by organisation on purpose: one
 * Roundcube serves every organisation, as the mail lookups do.
 */
export function webmailApps(db: DbOrTrx, templateKey: string): Promise<WebmailAppRow[]> {
  return db
    .selectFrom('apps')
    .innerJoin('oidc_clients', 'oidc_clients.client_id', 'apps.client_id')
    .innerJoin('organizations', 'organizations.id', 'apps.organization_id')
    .select([
      'apps.id as app_id',
      'apps.organization_id',
      'apps.template_key',
      'apps.launch_url',
      'apps.client_id',
      'oidc_clients.client_secret_enc',
      'organizations.site_name',
    ])
    .where('apps.template_key', '=', templateKey)
    .orderBy('apps.created_at')
    .orderBy('apps.id')
    .execute();
}

/** The verified domains of these organisations: hosts Caddy serves for them besides their site. */
export async function verifiedDomainsOf(
  db: DbOrTrx,
  organizationIds: string[],
): Promise<Map<string, string[]>> {
  const byOrganization = new Map<string, string[]>();
  if (organizationIds.length === 0) return byOrganization;
  const rows = await db
    .selectFrom('domains')
    .select(['organization_id', 'name'])
    .where('state', '=', 'verified')
    .where('organization_id', 'in', organizationIds)
    .execute();
  for (const row of rows) {
    byOrganization.set(row.organization_id, [...(byOrganization.get(row.organization_id) ?? []), row.name]);
  }
  return byOrganization;
}
