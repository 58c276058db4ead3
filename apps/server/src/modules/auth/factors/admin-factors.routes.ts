import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  userFactorsResponse,
  userPasskeyParams,
  userTrustedBrowserParams,
} from '@atrium/contracts/user-factors';
import { okSchema, userIdParamsSchema } from '@atrium/contracts/users';
import { principalOf } from '../../../plugins/auth-guard.ts';
import { routeOptions } from '../../../plugins/route-options.ts';
import { actorLabelOf } from '../../organizations/actor.ts';
import {
  removeUserAuthenticator,
  removeUserPasskey,
  removeUserTrustedBrowser,
  userFactors,
  type AdminFactorsDeps,
} from './admin-factors.service.ts';

const route = routeOptions({ config: { access: 'admin' }, tags: ['users'] });

/** Admins: a user's passkeys, authenticator app and trusted browsers on /users/:id; remove one. */
export const adminFactorsRoutes =
  (deps: AdminFactorsDeps): FastifyPluginAsyncZod =>
  async (app) => {
    const actorOf = async (request: Parameters<typeof principalOf>[0]) => {
      const principal = principalOf(request);
      const { label } = await actorLabelOf(deps.db, principal);
      return { organizationId: principal.organizationId, userId: principal.userId, label, ip: request.ip };
    };

    app.get(
      '/api/users/:id/sign-in-factors',
      route(
        'getUserSignInFactors',
        'The user’s passkeys, authenticator app, recovery codes left and trusted browsers',
        { params: userIdParamsSchema, response: { 200: userFactorsResponse } },
      ),
      async (request) => userFactors(deps.db, principalOf(request).organizationId, request.params.id),
    );

    app.delete(
      '/api/users/:id/passkeys/:passkeyId',
      route('removeUserPasskey', 'Remove one of the user’s passkeys (user e-mailed)', {
        params: userPasskeyParams,
        response: { 200: okSchema },
      }),
      async (request) => {
        await removeUserPasskey(deps, await actorOf(request), request.params.id, request.params.passkeyId);
        return { ok: true as const };
      },
    );

    app.delete(
      '/api/users/:id/authenticator',
      route(
        'removeUserAuthenticator',
        'Remove the user’s authenticator app; its recovery codes go too without a passkey (user e-mailed)',
        { params: userIdParamsSchema, response: { 200: okSchema } },
      ),
      async (request) => {
        await removeUserAuthenticator(deps, await actorOf(request), request.params.id);
        return { ok: true as const };
      },
    );

    app.delete(
      '/api/users/:id/trusted-browsers/:browserId',
      route(
        'removeUserTrustedBrowser',
        'Stop trusting one of the user’s browsers: its next sign-in asks for the second factor (user e-mailed)',
        { params: userTrustedBrowserParams, response: { 200: okSchema } },
      ),
      async (request) => {
        await removeUserTrustedBrowser(
          deps,
          await actorOf(request),
          request.params.id,
          request.params.browserId,
        );
        return { ok: true as const };
      },
    );
  };
