import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import type { SubscriptionStatus } from '../../src/db/subscription-tables.ts';

/** Puts an organisation on a plan straight in the database (the state a test starts from). */
export async function setSubscription(
  db: Kysely<Database>,
  organizationId: string,
  subscription: { planKey: string; seats: number; status?: SubscriptionStatus },
): Promise<void> {
  await db
    .updateTable('subscriptions')
    .set({
      plan_key: subscription.planKey,
      seats: subscription.seats,
      status: subscription.status ?? 'active',
    })
    .where('organization_id', '=', organizationId)
    .execute();
}

export async function countUsers(db: Kysely<Database>, organizationId: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A new user's body for POST /api/users, with a first password (no e-mail involved). */
export const person = (localPart: string, domain: string, extra: Record<string, unknown> = {}) => ({
  firstName: 'Grace',
  lastName: 'Hopper',
  localPart,
  domain,
  groupIds: [],
  credential: 'password',
  password: 'correct horse battery staple',
  ...extra,
});
