import { sql } from 'kysely';
import type { DbOrTrx, DomainState } from '../../db/database.ts';
import type { UserStatus } from '@atrium/contracts/users';

// Every query here is "organisation = $1 and key LIKE 'abc%' order by key using ~<~ limit n" on a
// (organization_id, key text_pattern_ops) index: an index range read in the index's own order that
// stops after n rows, however many users, groups, domains or apps the organisation has.

export interface UserHitRow {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
  status: UserStatus;
}

/**
 * Users whose full name ("first last", so also the first name), last name or e-mail address starts
 * with the pattern: up to `limit` of each, full-name matches first; one user may appear twice.
 * With `containsPattern` ('%text%'), then up to `limit` users whose name or address holds the text
 * anywhere (the trigram index users_search_trgm_idx).
 */
export async function findUsersByPrefix(
  db: DbOrTrx,
  organizationId: string,
  pattern: string,
  limit: number,
  containsPattern: string | null = null,
): Promise<UserHitRow[]> {
  return (await usersByPrefixQuery(organizationId, pattern, limit, containsPattern).execute(db)).rows;
}

/**
 * The users query itself (each kind's query is also compiled by the benchmark to show its plan).
 * The "contains" branch takes the first `limit` rows the trigram index gives, unsorted: sorting
 * every user of a domain ("acme" holds all 100,000) to show five would read them all; the outer
 * query orders the few it kept.
 */
export function usersByPrefixQuery(
  organizationId: string,
  pattern: string,
  limit: number,
  containsPattern: string | null = null,
) {
  const branch = (rank: number, key: ReturnType<typeof sql.raw>) => sql`(
    select u.id, u.first_name, u.last_name, u.email, u.status, ${sql.lit(rank)} as rank, ${key} as key
    from users u
    where u.organization_id = ${organizationId} and ${key} like ${pattern}
    order by ${key} using ~<~
    limit ${limit})`;
  return sql<UserHitRow>`
    select id, first_name, last_name, email, status from (
      ${branch(1, sql.raw('u.name_key'))}
      union all ${branch(2, sql.raw('lower(u.last_name)'))}
      union all ${branch(3, sql.raw('u.email'))}
      ${
        containsPattern === null
          ? sql``
          : sql`union all (
        select u.id, u.first_name, u.last_name, u.email, u.status, 4 as rank, u.name_key as key
        from users u
        where u.organization_id = ${organizationId}
          and (u.name_key || ' ' || lower(u.email)) like ${containsPattern}
        limit ${limit})`
      }
    ) as hits
    order by rank, key collate "C"`;
}

type GroupHitRow = { id: string; name: string; is_system: boolean };
type DomainHitRow = { id: string; name: string; state: DomainState; is_primary: boolean };
type AppHitRow = { id: string; title: string; launch_url: string };

export const groupsByPrefixQuery = (
  organizationId: string,
  pattern: string,
  limit: number,
) => sql<GroupHitRow>`
  select g.id, g.name, g.is_system from groups g
  where g.organization_id = ${organizationId} and g.name_key like ${pattern}
  order by g.name_key using ~<~
  limit ${limit}`;

export const domainsByPrefixQuery = (
  organizationId: string,
  pattern: string,
  limit: number,
) => sql<DomainHitRow>`
  select d.id, d.name, d.state, d.is_primary from domains d
  where d.organization_id = ${organizationId} and d.name like ${pattern}
  order by d.name using ~<~
  limit ${limit}`;

export const appsByPrefixQuery = (organizationId: string, pattern: string, limit: number) => sql<AppHitRow>`
  select a.id, a.title, a.launch_url from apps a
  where a.organization_id = ${organizationId} and lower(a.title) like ${pattern}
  order by lower(a.title) using ~<~
  limit ${limit}`;

export async function findGroupsByPrefix(
  db: DbOrTrx,
  organizationId: string,
  pattern: string,
  limit: number,
): Promise<GroupHitRow[]> {
  return (await groupsByPrefixQuery(organizationId, pattern, limit).execute(db)).rows;
}

export async function findDomainsByPrefix(
  db: DbOrTrx,
  organizationId: string,
  pattern: string,
  limit: number,
): Promise<DomainHitRow[]> {
  return (await domainsByPrefixQuery(organizationId, pattern, limit).execute(db)).rows;
}

export async function findAppsByPrefix(
  db: DbOrTrx,
  organizationId: string,
  pattern: string,
  limit: number,
): Promise<AppHitRow[]> {
  return (await appsByPrefixQuery(organizationId, pattern, limit).execute(db)).rows;
}
