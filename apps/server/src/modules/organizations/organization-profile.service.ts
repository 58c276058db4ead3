import type { OrganizationProfile, OrganizationProfileBody } from '@atrium/contracts/organizations';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { notFound } from '../../lib/errors.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import {
  findOrganization,
  updateOrganizationProfile,
  type OrganizationRow,
} from './organization-profile.repository.ts';
import { siteUrl } from './site-url.ts';

function toProfile(config: Config, row: OrganizationRow): OrganizationProfile {
  return {
    id: row.id,
    name: row.name,
    legalName: row.legal_name,
    industry: row.industry,
    size: row.size,
    country: row.country,
    timeZone: row.time_zone,
    siteName: row.site_name,
    siteUrl: siteUrl(config, row.site_name),
  };
}

export async function getOrganizationProfile(
  deps: { db: Db; config: Config },
  organizationId: string,
): Promise<OrganizationProfile> {
  const row = await findOrganization(deps.db, organizationId);
  if (!row) throw notFound('The organisation');
  return toProfile(deps.config, row);
}

/** Saves the profile and records what changed, in one transaction. */
export async function saveOrganizationProfile(
  deps: { db: Db; config: Config },
  organizationId: string,
  actor: { userId: string; label: string },
  profile: OrganizationProfileBody,
  ip: string,
): Promise<OrganizationProfile> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await updateOrganizationProfile(trx, organizationId, profile);
    if (!row) throw notFound('The organisation');
    await recordActivity(trx, {
      organizationId,
      actor,
      action: 'organization.updated',
      target: { type: 'organization', id: organizationId, label: row.name },
      ip,
    });
    return toProfile(deps.config, row);
  });
}
