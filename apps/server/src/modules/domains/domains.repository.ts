import { sql, type Selectable } from 'kysely';
import type { DbOrTrx, DomainsTable } from '../../db/database.ts';

export type DomainRow = Selectable<DomainsTable>;

// Every function is scoped by organisation: another organisation's domain is simply not found.

/** At most MAX_DOMAINS_PER_ORGANIZATION rows, so the list needs no paging. */
export function listDomains(db: DbOrTrx, organizationId: string): Promise<DomainRow[]> {
  return db
    .selectFrom('domains')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('name')
    .orderBy('id')
    .execute();
}

export function findDomain(
  db: DbOrTrx,
  organizationId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<DomainRow | undefined> {
  let query = db
    .selectFrom('domains')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/**
 * Serialises an organisation's domain changes (limit, first primary, primary switch), so two
 * admins acting at once cannot both pass a check that only one of them may pass.
 */
export async function lockOrganization(db: DbOrTrx, organizationId: string): Promise<boolean> {
  const row = await db
    .selectFrom('organizations')
    .select('id')
    .where('id', '=', organizationId)
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined;
}

/** How many domains the organisation has, whether it already has `name`, and whether another one verified it. */
/** The names above `name` that could be a domain of their own: `a.b.example.com` → `b.example.com`, `example.com`. */
export function parentDomainNames(name: string): string[] {
  const labels = name.split('.');
  return labels.slice(1, -1).map((_, i) => labels.slice(i + 1).join('.'));
}

/**
 * Whether the organisation may take `name`: its domain count, whether it already has it, and
 * whether another organisation verified it (`verifiedElsewhere`) or a domain above it
 * (`parentVerifiedElsewhere`: names under a verified domain belong to its organisation).
 */
export async function nameAvailability(
  db: DbOrTrx,
  organizationId: string,
  name: string,
): Promise<{
  count: number;
  ownExists: boolean;
  verifiedElsewhere: boolean;
  parentVerifiedElsewhere: boolean;
}> {
  const parents = parentDomainNames(name);
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('domains')
        .select((s) => s.fn.countAll<string>().as('n'))
        .where('organization_id', '=', organizationId)
        .as('count'),
      eb
        .exists(
          eb
            .selectFrom('domains')
            .select('id')
            .where('organization_id', '=', organizationId)
            .where('name', '=', name),
        )
        .as('own_exists'),
      eb
        .exists(
          eb
            .selectFrom('domains')
            .select('id')
            .where('organization_id', '!=', organizationId)
            .where('name', '=', name)
            .where('state', '=', 'verified'),
        )
        .as('verified_elsewhere'),
      eb
        .exists(
          eb
            .selectFrom('domains')
            .select('id')
            .where('organization_id', '!=', organizationId)
            // `in ()` is not SQL: a name with no parents matches an impossible one.
            .where('name', 'in', parents.length > 0 ? parents : [''])
            .where('state', '=', 'verified'),
        )
        .as('parent_verified_elsewhere'),
    ])
    .executeTakeFirstOrThrow();
  return {
    count: Number(row.count),
    ownExists: Boolean(row.own_exists),
    verifiedElsewhere: Boolean(row.verified_elsewhere),
    parentVerifiedElsewhere: Boolean(row.parent_verified_elsewhere),
  };
}

export function insertDomain(
  db: DbOrTrx,
  organizationId: string,
  values: {
    name: string;
    verificationToken: string;
    dkimPrivateKeyEnc: string;
    dkimPublicKey: string;
    firstCheckInMs: number;
  },
): Promise<DomainRow> {
  return db
    .insertInto('domains')
    .values({
      organization_id: organizationId,
      name: values.name,
      verification_token: values.verificationToken,
      dkim_private_key_enc: values.dkimPrivateKeyEnc,
      dkim_public_key: values.dkimPublicKey,
      next_check_at: sql<Date>`now() + make_interval(secs => ${values.firstCheckInMs / 1000})`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function hasPrimary(db: DbOrTrx, organizationId: string): Promise<boolean> {
  return db
    .selectFrom('domains')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('is_primary', '=', true)
    .executeTakeFirst()
    .then((row) => row !== undefined);
}

export function recordCheck(
  db: DbOrTrx,
  organizationId: string,
  id: string,
  check: unknown,
  verified: { makePrimary: boolean } | null,
): Promise<DomainRow | undefined> {
  return db
    .updateTable('domains')
    .set({
      last_check: JSON.stringify(check),
      last_checked_at: sql<Date>`now()`,
      ...(verified
        ? { state: 'verified', verified_at: sql<Date>`now()`, is_primary: verified.makePrimary }
        : {}),
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Moves the primary mark within one organisation. Two statements (call inside a transaction):
 * PostgreSQL checks the one-primary index row by row, so a single swapping UPDATE could trip it.
 */
export async function setPrimary(
  db: DbOrTrx,
  organizationId: string,
  id: string,
): Promise<DomainRow | undefined> {
  await db
    .updateTable('domains')
    .set({ is_primary: false })
    .where('organization_id', '=', organizationId)
    .where('is_primary', '=', true)
    .where('id', '!=', id)
    .execute();
  return db
    .updateTable('domains')
    .set({ is_primary: true })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function countOtherVerified(db: DbOrTrx, organizationId: string, id: string): Promise<number> {
  const row = await db
    .selectFrom('domains')
    .select((s) => s.fn.countAll<string>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('state', '=', 'verified')
    .where('id', '!=', id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Users of the organisation whose address is `…@name` (uses users_org_email_domain_idx). */
export async function usersOnDomain(
  db: DbOrTrx,
  organizationId: string,
  name: string,
  limit: number,
): Promise<{ users: Array<{ id: string; name: string; email: string }>; total: number }> {
  const rows = await db
    .selectFrom('users')
    .select([
      'id',
      'email',
      'first_name',
      'last_name',
      (eb) =>
        eb.fn
          .agg<string>('count', [eb.lit(1)])
          .over()
          .as('total'),
    ])
    .where('organization_id', '=', organizationId)
    .where(sql<string>`split_part(email, '@', 2)`, '=', name)
    .orderBy('email')
    .limit(limit)
    .execute();
  return {
    users: rows.map((r) => ({ id: r.id, name: `${r.first_name} ${r.last_name}`.trim(), email: r.email })),
    total: rows.length > 0 ? Number(rows[0]!.total) : 0,
  };
}

export function deleteDomain(
  db: DbOrTrx,
  organizationId: string,
  id: string,
): Promise<DomainRow | undefined> {
  return db
    .deleteFrom('domains')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** The organisation's site name: the DNS mapping's CNAME points at `<site>.<SITE_BASE_DOMAIN>`. */
export async function organizationSiteName(db: DbOrTrx, organizationId: string): Promise<string> {
  const row = await db
    .selectFrom('organizations')
    .select('site_name')
    .where('id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return row.site_name;
}

/** The acting admin as the activity log names them ("First Last", else the address). */
export async function findActor(
  db: DbOrTrx,
  organizationId: string,
  userId: string,
): Promise<{ userId: string; label: string }> {
  const user = await db
    .selectFrom('users')
    .select(['first_name', 'last_name', 'email'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', userId)
    .executeTakeFirst();
  return {
    userId,
    label: user ? `${user.first_name} ${user.last_name}`.trim() || user.email : 'Unknown user',
  };
}

/**
 * The outcome of a look-up of the domain's DNS mapping: how many records it has and how many were
 * in place. The setup checklist's "Publish your mail records" reads it, so the dashboard asks no
 * DNS server when it opens.
 */
export async function saveRecordsCheck(
  db: DbOrTrx,
  organizationId: string,
  id: string,
  counts: { total: number; ok: number; checkedAt: Date },
): Promise<void> {
  await db
    .updateTable('domains')
    .set({ records_checked_at: counts.checkedAt, records_total: counts.total, records_ok: counts.ok })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
}
