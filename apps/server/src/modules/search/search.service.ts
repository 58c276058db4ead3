import type { SearchHit, SearchResults } from '@atrium/contracts/search';
import type { DbOrTrx } from '../../db/database.ts';
import { containsPattern, prefixPattern } from '../../lib/prefix-pattern.ts';
import {
  findAppsByPrefix,
  findDomainsByPrefix,
  findGroupsByPrefix,
  findUsersByPrefix,
  type UserHitRow,
} from './search.repository.ts';

const DOMAIN_STATES = {
  verified: 'Verified',
  pending: 'Pending verification',
  failed: 'Verification failed',
};
const USER_STATUSES = { active: null, suspended: 'Suspended', invited: 'Invited' };

/**
 * The header search: an organisation's users, groups, domains and apps whose name starts with the
 * text (users also by last name and e-mail, then by any part of name or address), up to `limit`
 * of each kind. Four indexed queries, whatever the organisation's size.
 */
export async function searchOrganization(
  db: DbOrTrx,
  organizationId: string,
  q: string,
  limit: number,
): Promise<SearchResults> {
  const pattern = prefixPattern(q);
  const [users, groups, domains, apps] = await Promise.all([
    findUsersByPrefix(db, organizationId, pattern, limit, containsPattern(q)),
    findGroupsByPrefix(db, organizationId, pattern, limit),
    findDomainsByPrefix(db, organizationId, pattern, limit),
    findAppsByPrefix(db, organizationId, pattern, limit),
  ]);
  return {
    users: userHits(users, limit),
    groups: groups.map((g) => ({
      id: g.id,
      label: g.name,
      secondary: g.is_system ? 'Administrators' : null,
    })),
    domains: domains.map((d) => ({
      id: d.id,
      label: d.name,
      secondary: d.is_primary ? `${DOMAIN_STATES[d.state]} · Primary` : DOMAIN_STATES[d.state],
    })),
    apps: apps.map((a) => ({ id: a.id, label: a.title, secondary: hostOf(a.launch_url) })),
  };
}

/** A user found by several keys (name and e-mail) is listed once, where it first matched. */
function userHits(rows: UserHitRow[], limit: number): SearchHit[] {
  const seen = new Set<string>();
  const hits: SearchHit[] = [];
  for (const row of rows) {
    if (seen.has(row.id) || hits.length === limit) continue;
    seen.add(row.id);
    const status = USER_STATUSES[row.status];
    hits.push({
      id: row.id,
      label: `${row.first_name} ${row.last_name}`,
      secondary: status ? `${row.email} · ${status}` : row.email,
    });
  }
  return hits;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}
