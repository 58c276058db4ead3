import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';

/** What the wizard records: its page, the steps it was told are done or skipped, and the finish. */
export interface SetupRecord {
  currentStep: string;
  /** Only profile and apps count from here; the other steps are judged from the data. */
  done: string[];
  skipped: string[];
  completedAt: Date | null;
}

/** What the organisation's data says about the steps whose truth is in the data. */
export interface SetupFacts {
  hasDomain: boolean;
  hasVerifiedDomain: boolean;
  /** More users than the admin who signed up. */
  hasUsers: boolean;
}

export interface SetupState extends SetupRecord {
  facts: SetupFacts;
}

/** Sign-up creates the record in its transaction; organisations made otherwise have none. */
export async function insertSetupRecord(db: DbOrTrx, organizationId: string): Promise<void> {
  await db.insertInto('organization_setup').values({ organization_id: organizationId }).execute();
}

/**
 * The record with the facts, in one statement. Each stops at its first rows: domains by the
 * (organization_id, name) index, users by an organisation index (at most two rows read).
 * (Kysely types EXISTS for every dialect; on PostgreSQL it is a boolean.)
 */
export async function findSetupState(db: DbOrTrx, organizationId: string): Promise<SetupState | undefined> {
  const row = await db
    .selectFrom('organization_setup as s')
    .select(['s.current_step', 's.done_steps', 's.skipped_steps', 's.completed_at'])
    .select((eb) => [
      eb
        .exists(eb.selectFrom('domains as d').select('d.id').where('d.organization_id', '=', organizationId))
        .$castTo<boolean>()
        .as('has_domain'),
      eb
        .exists(
          eb
            .selectFrom('domains as d')
            .select('d.id')
            .where('d.organization_id', '=', organizationId)
            .where('d.state', '=', 'verified'),
        )
        .$castTo<boolean>()
        .as('has_verified_domain'),
      // A second user: whoever signed up has been joined by someone (a co-admin counts too).
      sql<boolean>`(select count(*) from (select 1 from users u
        where u.organization_id = ${organizationId} limit 2) two) = 2`.as('has_users'),
    ])
    .where('s.organization_id', '=', organizationId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    currentStep: row.current_step,
    done: row.done_steps,
    skipped: row.skipped_steps,
    completedAt: row.completed_at,
    facts: {
      hasDomain: row.has_domain,
      hasVerifiedDomain: row.has_verified_domain,
      hasUsers: row.has_users,
    },
  };
}

/**
 * Locks the record for a read-modify-write, so two tabs cannot lose each other's step. Read the
 * state after this, in its own statement: it then sees whatever committed while we waited
 * (a domain verified meanwhile). Returns false when the organisation has no record.
 */
export async function lockSetupRecord(db: DbOrTrx, organizationId: string): Promise<boolean> {
  const row = await db
    .selectFrom('organization_setup')
    .select('organization_id')
    .where('organization_id', '=', organizationId)
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined;
}

export async function saveSetupRecord(
  db: DbOrTrx,
  organizationId: string,
  record: { currentStep: string; done: string[]; skipped: string[]; completedAt?: Date },
): Promise<void> {
  await db
    .updateTable('organization_setup')
    .set({
      current_step: record.currentStep,
      // Written as array literals through a cast, which both drivers (pg and PGlite) accept.
      done_steps: sql<string[]>`${arrayLiteral(record.done)}::text[]`,
      skipped_steps: sql<string[]>`${arrayLiteral(record.skipped)}::text[]`,
      ...(record.completedAt && { completed_at: record.completedAt }),
      updated_at: sql`now()`,
    })
    .where('organization_id', '=', organizationId)
    .execute();
}

/** Step ids are fixed lowercase words, so a plain `{a,b}` literal needs no quoting. */
function arrayLiteral(values: string[]): string {
  return `{${values.join(',')}}`;
}
