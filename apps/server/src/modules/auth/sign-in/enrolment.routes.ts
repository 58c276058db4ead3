import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type Provider from 'oidc-provider';
import { z } from 'zod';
import { authenticatorEnrolment, confirmAuthenticatorBody } from '@atrium/contracts/authenticator';
import { enrolmentDoneResponse } from '@atrium/contracts/sign-in-policy';
import { AppError } from '../../../lib/errors.ts';
import { confirmEnrolment, startEnrolment } from '../factors/authenticator/authenticator.service.ts';
import { interactionHelpers } from './interaction-helpers.ts';
import { endEnrolmentStage, findEnrolmentStage } from './sign-in-enrolment.ts';
import type { SignInDeps } from './sign-in.service.ts';
import { routeOptions } from '../../../plugins/route-options.ts';

const params = z.object({ uid: z.string().min(1).max(100) });
const tags = ['sign-in'];
/** Confirmation codes are slowed down like the other public sign-in endpoints (docs/sign-in.md). */
const tight = { max: 20, timeWindow: '1 minute' };

const route = routeOptions({ config: { access: 'public', rateLimit: tight }, tags });

/**
 * Forced enrolment at /login (issue 17 item 5): a sign-in whose factors were right, in an
 * organisation that requires a strong factor this account lacks, sets up an authenticator app
 * with the same service as /profile, gets its recovery codes once, and only then completes. The
 * ID token then says the app was used (its first code was just typed).
 */
export const enrolmentRoutes =
  (deps: SignInDeps & { provider: Provider }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db, config } = deps;
    const { details, finish } = interactionHelpers(deps.provider);
    const stageOf = async (uid: string) => {
      const stage = await findEnrolmentStage(db, uid);
      if (!stage) throw new AppError(409, 'no_enrolment', 'Enter your e-mail and password first.');
      return stage;
    };

    app.post(
      '/api/interactions/:uid/enrolment',
      route(
        'startSignInEnrolment',
        'A new authenticator secret and its QR code, for a sign-in that must set one up',
        { params, response: { 200: authenticatorEnrolment } },
      ),
      async (request, reply) => {
        const interaction = await details(request, reply, request.params.uid);
        const stage = await stageOf(interaction.uid);
        return startEnrolment(db, config, stage);
      },
    );

    app.post(
      '/api/interactions/:uid/enrolment/confirm',
      route(
        'confirmSignInEnrolment',
        'Confirms the app with its first code and completes the sign-in; recovery codes shown once',
        { params, body: confirmAuthenticatorBody, response: { 200: enrolmentDoneResponse } },
      ),
      async (request, reply) => {
        const interaction = await details(request, reply, request.params.uid);
        const stage = await stageOf(interaction.uid);
        const { recoveryCodes } = await confirmEnrolment(
          deps,
          { ...stage, ip: request.ip },
          request.body.code,
        );
        await endEnrolmentStage(db, interaction.uid);
        return { recoveryCodes, redirectTo: await finish(request, reply, stage.userId, 'totp') };
      },
    );
  };
