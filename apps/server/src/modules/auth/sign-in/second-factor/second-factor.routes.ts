import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type Provider from 'oidc-provider';
import { z } from 'zod';
import { interactionState, redirectResponse, type InteractionState } from '@atrium/contracts/auth';
import { chooseFactorBody, signInRecoveryBody, signInTotpBody } from '@atrium/contracts/authenticator';
import { findLatestCode } from '../codes/email-codes.ts';
import { interactionHelpers } from '../interaction-helpers.ts';
import { deviceTokenOf, keepDeviceCookie } from '../known-devices.ts';
import { checkAuthenticatorCode, checkRecoveryCode, chooseFactor } from './second-factor.service.ts';
import type { SignInDeps } from '../sign-in.service.ts';
import { finishOrEnrol } from '../sign-in-enrolment.ts';
import { emailCodeRefused, offersFor } from '../sign-in-offers.ts';
import { findSecondFactor } from '../sign-in-progress.ts';
import { routeOptions } from '../../../../plugins/route-options.ts';

const params = z.object({ uid: z.string().min(1).max(100) });
const tags = ['sign-in'];
/** The same per-address limit as the other public sign-in endpoints (docs/sign-in.md). */
const tight = { max: 20, timeWindow: '1 minute' };

const route = routeOptions({ config: { access: 'public', rateLimit: tight }, tags });

/**
 * The second step of a sign-in for accounts with an authenticator app (issue 17): its code, a
 * recovery code, or "Use another way". Each needs the password of this very sign-in first
 * (sign-in-progress.ts), and wrong codes meet the same throttling as wrong passwords.
 */
export const secondFactorRoutes =
  (deps: SignInDeps & { provider: Provider }): FastifyPluginAsyncZod =>
  async (app) => {
    const helpers = interactionHelpers(deps.provider);
    const { details, clientName } = helpers;

    // The authenticator app's code and a recovery code complete the sign-in the same way; only the check differs.
    const codeSteps = [
      {
        path: 'totp',
        method: 'totp',
        check: checkAuthenticatorCode,
        options: route(
          'submitSignInAuthenticatorCode',
          'Checks the authenticator app’s code and completes the sign-in',
          { params, body: signInTotpBody, response: { 200: redirectResponse } },
        ),
      },
      {
        path: 'recovery',
        method: 'recovery',
        check: checkRecoveryCode,
        options: route(
          'submitSignInRecoveryCode',
          'Uses up one recovery code and completes the sign-in; the owner is e-mailed',
          { params, body: signInRecoveryBody, response: { 200: redirectResponse } },
        ),
      },
    ] as const;
    for (const step of codeSteps) {
      app.post(`/api/interactions/:uid/${step.path}`, step.options, async (request, reply) => {
        const interaction = await details(request, reply, request.params.uid);
        const device = deviceTokenOf(request);
        const { userId, facts } = await step.check(deps, {
          context: interaction.uid,
          code: request.body.code,
          ip: request.ip,
          device: { token: device, userAgent: request.headers['user-agent'] },
        });
        keepDeviceCookie(reply, deps.config, device);
        const trust = request.body.trustBrowser ? { token: device } : undefined;
        return {
          redirectTo: await finishOrEnrol(deps.db, helpers, request, reply, {
            uid: interaction.uid,
            userId,
            method: step.method,
            trust,
            facts,
          }),
        };
      });
    }

    app.post(
      '/api/interactions/:uid/factor',
      route(
        'chooseSignInFactor',
        '“Use another way”: a passkey, the authenticator app, a recovery code, or a code by e-mail',
        { params, body: chooseFactorBody, response: { 200: interactionState } },
      ),
      async (request, reply): Promise<InteractionState> => {
        const interaction = await details(request, reply, request.params.uid);
        // The app's request for a strong sign-in, or the organisation's policy, refuses the e-mail.
        const pending = await findSecondFactor(deps.db, interaction.uid);
        const strongRequired = await emailCodeRefused(deps.db, pending?.userId, interaction.params);
        const progress = await chooseFactor(deps, {
          context: interaction.uid,
          factor: request.body.factor,
          strongRequired,
        });
        const name = await clientName(interaction.params.client_id);
        const offers = await offersFor(deps.db, progress, progress.factor, interaction.params);
        const { otherWays } = offers;
        if (progress.factor !== 'email') {
          return { stage: progress.factor, clientName: name, email: progress.identifier, ...offers };
        }
        const latest = (await findLatestCode(deps.db, { purpose: 'sign-in', context: interaction.uid }))!;
        return {
          stage: 'code',
          clientName: name,
          email: progress.identifier,
          resendAvailableAt: latest.resendAvailableAt.toISOString(),
          codeSent: latest.mailSent,
          otherWays,
          canTrustBrowser: offers.canTrustBrowser,
        };
      },
    );
  };
