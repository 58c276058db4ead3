import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema, userIdParamsSchema } from '@atrium/contracts/users';
import { signInPolicy } from '@atrium/contracts/sign-in-policy';
import { resetSignInFactorsInput } from '@atrium/contracts/user-factors';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import type { Mailer } from '../../../lib/mail.ts';
import { principalOf } from '../../../plugins/auth-guard.ts';
import { actorLabelOf } from '../../organizations/actor.ts';
import { resetSignInFactors } from '../factors/factor-reset.service.ts';
import { getSignInPolicy, updateSignInPolicy } from './sign-in-policy.service.ts';
import { routeOptions } from '../../../plugins/route-options.ts';

const ADMIN = { access: 'admin' as const };

const route = routeOptions({ config: ADMIN, tags: ['organization'] });

/** Admins: the organisation's sign-in policy (/organization) and a user's factor reset (/users/:id). */
export const signInAdminRoutes =
  (deps: { db: Db; config: Config; mailer: Mailer }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db } = deps;
    const actorOf = async (request: Parameters<typeof principalOf>[0]) => {
      const principal = principalOf(request);
      const { label } = await actorLabelOf(db, principal);
      return { organizationId: principal.organizationId, userId: principal.userId, label, ip: request.ip };
    };

    app.get(
      '/api/organization/sign-in-policy',
      route(
        'getSignInPolicy',
        'Who must have a strong factor, whether the e-mail code and trusted browsers are allowed',
        { response: { 200: signInPolicy } },
      ),
      async (request) => getSignInPolicy(db, principalOf(request).organizationId),
    );

    app.put(
      '/api/organization/sign-in-policy',
      route(
        'updateSignInPolicy',
        'Change the sign-in policy; users who must set up a strong factor do so at their next sign-in',
        { body: signInPolicy, response: { 200: signInPolicy } },
      ),
      async (request) => updateSignInPolicy(db, await actorOf(request), request.body),
    );

    app.post(
      '/api/users/:id/reset-sign-in-factors',
      route(
        'resetUserSignInFactors',
        'Remove the user’s passkeys, authenticator app, recovery codes and trusted browsers, and with revokeAppPasswords their app passwords (user e-mailed)',
        {
          tags: ['users'],
          params: userIdParamsSchema,
          body: resetSignInFactorsInput,
          response: { 200: okSchema },
        },
      ),
      async (request) => {
        await resetSignInFactors(deps, await actorOf(request), request.params.id, {
          revokeAppPasswords: request.body.revokeAppPasswords,
        });
        return { ok: true as const };
      },
    );
  };
