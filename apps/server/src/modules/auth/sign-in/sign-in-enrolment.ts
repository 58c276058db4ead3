import { sql } from 'kysely';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DbOrTrx } from '../../../db/database.ts';
import type { SignInMethod } from '../../../oidc/authentication-methods.ts';
import type { interactionHelpers } from './interaction-helpers.ts';
import { enrolmentRequired, type EnrolmentFacts } from '../policy/sign-in-policy.service.ts';
import { trustBrowser } from '../factors/trusted-browsers/trusted-browsers.ts';

/** How long a sign-in may take to set up its authenticator app once its factors were right. */
const ENROLMENT_MINUTES = 15;

export interface EnrolmentStage {
  organizationId: string;
  userId: string;
  email: string;
}

export async function findEnrolmentStage(db: DbOrTrx, context: string): Promise<EnrolmentStage | undefined> {
  // An account suspended meanwhile does not finish its sign-in here.
  const row = await db
    .selectFrom('sign_in_enrolments as e')
    .innerJoin('users as u', 'u.id', 'e.user_id')
    .select(['e.organization_id', 'e.user_id', 'e.email'])
    .where('e.context', '=', context)
    .where('e.expires_at', '>', sql<Date>`now()`)
    .where('u.status', '=', 'active')
    .executeTakeFirst();
  return row ? { organizationId: row.organization_id, userId: row.user_id, email: row.email } : undefined;
}

export async function endEnrolmentStage(db: DbOrTrx, context: string): Promise<void> {
  await db.deleteFrom('sign_in_enrolments').where('context', '=', context).execute();
}

/**
 * The end of every way through /login once its factors were right: trusts the browser when
 * asked (and allowed), then either finishes the login or, when the organisation requires a strong
 * factor this account lacks, holds it at the enrolment stage. Returns where the browser goes next:
 * the app, or /login again, which then shows the enrolment.
 */
export async function finishOrEnrol(
  db: DbOrTrx,
  helpers: ReturnType<typeof interactionHelpers>,
  request: FastifyRequest,
  reply: FastifyReply,
  input: {
    uid: string;
    userId: string;
    method: SignInMethod;
    trust?: { token: string };
    /** Read with the completed sign-in's writes, when it went through `completeSignIn`. */
    facts?: EnrolmentFacts;
  },
): Promise<string> {
  if (input.trust) {
    await trustBrowser(db, {
      userId: input.userId,
      token: input.trust.token,
      userAgent: request.headers['user-agent'],
    });
  }
  if (await enrolmentRequired(db, input.userId, input.facts)) {
    const user = await db
      .selectFrom('users')
      .select(['organization_id', 'email'])
      .where('id', '=', input.userId)
      .executeTakeFirstOrThrow();
    const values = {
      organization_id: user.organization_id,
      user_id: input.userId,
      email: user.email,
      expires_at: sql<Date>`now() + make_interval(mins => ${ENROLMENT_MINUTES})`,
    };
    await db
      .insertInto('sign_in_enrolments')
      .values({ context: input.uid, ...values })
      .onConflict((oc) => oc.column('context').doUpdateSet(values))
      .execute();
    return `/login?uid=${encodeURIComponent(input.uid)}`;
  }
  return helpers.finish(request, reply, input.userId, input.method);
}
