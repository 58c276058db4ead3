import { sql } from 'kysely';
import type { DbOrTrx } from '../../../db/database.ts';
import type { SecondFactor } from '../../../db/sign-in-factor-tables.ts';
import { CODE_MAX_ATTEMPTS, CODE_TTL_SECONDS } from './codes/email-codes.ts';

/**
 * A sign-in between its right password and its second factor, by interaction uid. It lives as
 * long as an e-mailed code (10 minutes) and, like one, dies after 5 wrong codes: the password
 * must then be entered again, which is itself throttled.
 */
export const FACTOR_MAX_ATTEMPTS = CODE_MAX_ATTEMPTS;

export interface SignInProgress {
  identifier: string;
  userId: string;
  factor: SecondFactor;
  attempts: number;
}

/**
 * Records that the password of this sign-in was right. Entering the password again for the same
 * account keeps the count of wrong codes, so it cannot be reset that way.
 */
export async function startSecondFactor(
  db: DbOrTrx,
  input: { context: string; identifier: string; userId: string; factor: SecondFactor },
): Promise<void> {
  await db
    .insertInto('sign_in_progress')
    .values({
      context: input.context,
      identifier: input.identifier,
      user_id: input.userId,
      factor: input.factor,
      expires_at: sql<Date>`now() + make_interval(secs => ${CODE_TTL_SECONDS})`,
    })
    .onConflict((oc) =>
      oc.column('context').doUpdateSet({
        identifier: input.identifier,
        user_id: input.userId,
        factor: input.factor,
        attempts: sql<number>`case when sign_in_progress.user_id = ${input.userId}
          and sign_in_progress.expires_at > now() then sign_in_progress.attempts else 0 end`,
        expires_at: sql<Date>`now() + make_interval(secs => ${CODE_TTL_SECONDS})`,
      }),
    )
    .execute();
}

/** The statement reading a live progress; also a subquery of the code step's (sign-in.repository.ts). */
export const liveProgress = (context: string) => sql<SignInProgress>`
  select identifier, user_id as "userId", factor, attempts
  from sign_in_progress
  where context = ${context} and expires_at > now() and attempts < ${FACTOR_MAX_ATTEMPTS}`;

/** The live progress of this sign-in, if its password was right. */
export async function findSecondFactor(db: DbOrTrx, context: string): Promise<SignInProgress | undefined> {
  return (await liveProgress(context).execute(db)).rows[0];
}

export async function chooseSecondFactor(db: DbOrTrx, context: string, factor: SecondFactor): Promise<void> {
  await db.updateTable('sign_in_progress').set({ factor }).where('context', '=', context).execute();
}

/** Counts a wrong code; returns the tries left (0: the password must be entered again). */
export async function countWrongFactor(db: DbOrTrx, context: string): Promise<number> {
  const row = await db
    .updateTable('sign_in_progress')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('context', '=', context)
    .returning('attempts')
    .executeTakeFirst();
  return Math.max(0, FACTOR_MAX_ATTEMPTS - (row?.attempts ?? FACTOR_MAX_ATTEMPTS));
}
