import { sql } from 'kysely';
import type { SignInWorld } from './sign-in-world.ts';

/** The account's live codes die (expired, or 5 wrong tries): the next sign-in needs a new one. */
export function codesDie(world: SignInWorld, email: string) {
  return world.server.db
    .updateTable('email_codes')
    .set({ expires_at: sql`now() - interval '1 second'` })
    .where('identifier', '=', email)
    .where('consumed_at', 'is', null)
    .execute();
}
