import type { OrganizationProfileBody } from '@atrium/contracts/organizations';
import type { DbOrTrx } from '../../db/database.ts';

export interface OrganizationRow {
  id: string;
  name: string;
  legal_name: string | null;
  industry: string | null;
  size: string | null;
  country: string | null;
  time_zone: string | null;
  site_name: string;
}

const columns = [
  'id',
  'name',
  'legal_name',
  'industry',
  'size',
  'country',
  'time_zone',
  'site_name',
] as const;

export async function findOrganization(
  db: DbOrTrx,
  organizationId: string,
): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').select(columns).where('id', '=', organizationId).executeTakeFirst();
}

/** The site name is not among the columns: it is fixed at sign-up. */
export async function updateOrganizationProfile(
  db: DbOrTrx,
  organizationId: string,
  profile: OrganizationProfileBody,
): Promise<OrganizationRow | undefined> {
  return db
    .updateTable('organizations')
    .set({
      name: profile.name,
      legal_name: profile.legalName,
      industry: profile.industry,
      size: profile.size,
      country: profile.country,
      time_zone: profile.timeZone,
    })
    .where('id', '=', organizationId)
    .returning(columns)
    .executeTakeFirst();
}
