import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { currentPasswordBody } from '@atrium/contracts/authenticator';
import {
  passkeyOptionsResponse,
  passkeyRegistrationBody,
  passkeysResponse,
  registerPasskeyBody,
  registerPasskeyResponse,
} from '@atrium/contracts/passkeys';
import type { Config } from '../../../../config.ts';
import type { Db } from '../../../../db/database.ts';
import type { Mailer } from '../../../../lib/mail.ts';
import { principalOf } from '../../../../plugins/auth-guard.ts';
import { finishRegistration, ownPasskeys, removePasskey, startRegistration } from './passkeys.service.ts';
import { routeOptions } from '../../../../plugins/route-options.ts';

const tags = ['profile'];
/** Guessing the password is slowed down here too. */
const limited = { max: 10, timeWindow: '1 minute' };
const params = z.object({ passkeyId: z.uuid() });

const route = routeOptions({ config: { access: 'user', rateLimit: limited }, tags });

/** The signed-in user's passkeys (/profile, issue 17). */
export const passkeysRoutes =
  (deps: { db: Db; config: Config; mailer: Mailer }): FastifyPluginAsyncZod =>
  async (app) => {
    const actorOf = (request: Parameters<typeof principalOf>[0]) => {
      const principal = principalOf(request);
      return {
        organizationId: principal.organizationId,
        userId: principal.userId,
        sessionId: principal.sessionId,
        ip: request.ip,
      };
    };

    app.get(
      '/api/profile/passkeys',
      route(
        'listOwnPasskeys',
        'Your passkeys, oldest first, with when each was last used',
        { response: { 200: passkeysResponse } },
        { access: 'user' },
      ),
      async (request) => ownPasskeys(deps, actorOf(request)),
    );

    app.post(
      '/api/profile/passkeys/options',
      route('startPasskeyRegistration', 'WebAuthn options to create a passkey (current password required)', {
        body: passkeyRegistrationBody,
        response: { 200: passkeyOptionsResponse },
      }),
      async (request) => ({
        options: await startRegistration(deps, actorOf(request), request.body.currentPassword),
      }),
    );

    app.post(
      '/api/profile/passkeys',
      route(
        'registerPasskey',
        'Adds the passkey the browser created; the first strong factor brings recovery codes',
        { body: registerPasskeyBody, response: { 200: registerPasskeyResponse } },
      ),
      async (request) => finishRegistration(deps, actorOf(request), request.body),
    );

    app.post(
      '/api/profile/passkeys/:passkeyId/remove',
      route('removeOwnPasskey', 'Removes one of your passkeys (current password required)', {
        params,
        body: currentPasswordBody,
        response: { 204: z.null() },
      }),
      async (request, reply) => {
        await removePasskey(deps, actorOf(request), {
          id: request.params.passkeyId,
          currentPassword: request.body.currentPassword,
        });
        return reply.status(204).send(null);
      },
    );
  };
