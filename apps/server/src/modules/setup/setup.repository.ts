import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';

export interface SetupRecord {
  currentStep: string;
  done: string[];
  skipped: string[];
  completedAt: Date | null;
}

/** Sign-up creates the record in its transaction; organisations made otherwise have none. */
export async function insertSetupRecord(db: DbOrTrx, organizationId: string): Promise<void> {
  await db.insertInto('organization_setup').values({ organization_id: organizationId }).execute();
}

export async function findSetupRecord(db: DbOrTrx, organizationId: string): Promise<SetupRecord | undefined> {
  const row = await db
    .selectFrom('organization_setup')
    .select(['current_step', 'done_steps', 'skipped_steps', 'completed_at'])
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    currentStep: row.current_step,
    done: row.done_steps,
    skipped: row.skipped_steps,
    completedAt: row.completed_at,
  };
}

/** Locks the record for a read-modify-write, so two tabs cannot lose each other's step. */
export async function lockSetupRecord(db: DbOrTrx, organizationId: string): Promise<SetupRecord | undefined> {
  const row = await db
    .selectFrom('organization_setup')
    .select(['current_step', 'done_steps', 'skipped_steps', 'completed_at'])
    .where('organization_id', '=', organizationId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    currentStep: row.current_step,
    done: row.done_steps,
    skipped: row.skipped_steps,
    completedAt: row.completed_at,
  };
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
