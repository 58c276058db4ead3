import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type Provider from 'oidc-provider';
import { z } from 'zod';
import { redirectResponse } from '@atrium/contracts/auth';
import { passkeyOptionsResponse, signInPasskeyBody } from '@atrium/contracts/passkeys';
import { interactionHelpers } from '../interaction-helpers.ts';
import { deviceTokenOf, keepDeviceCookie } from '../known-devices.ts';
import { finishOrEnrol } from '../sign-in-enrolment.ts';
import { checkPasskey, passkeyOptions } from './passkey-sign-in.service.ts';
import type { SignInDeps } from '../sign-in.service.ts';
import { routeOptions } from '../../../../plugins/route-options.ts';

const params = z.object({ uid: z.string().min(1).max(100) });
const tags = ['sign-in'];
/** The same per-address limit as the other public sign-in endpoints (docs/sign-in.md). */
const tight = { max: 20, timeWindow: '1 minute' };

const route = routeOptions({ config: { access: 'public', rateLimit: tight }, tags });

/** Signing in with a passkey at /login: alone, or after the password (issue 17). */
export const passkeySignInRoutes =
  (deps: SignInDeps & { provider: Provider }): FastifyPluginAsyncZod =>
  async (app) => {
    const helpers = interactionHelpers(deps.provider);
    const { details } = helpers;

    app.post(
      '/api/interactions/:uid/passkey/options',
      route('startPasskeySignIn', 'WebAuthn options to sign in with a passkey, alone or after the password', {
        params,
        response: { 200: passkeyOptionsResponse },
      }),
      async (request, reply) => {
        const interaction = await details(request, reply, request.params.uid);
        return { options: await passkeyOptions(deps, interaction.uid) };
      },
    );

    app.post(
      '/api/interactions/:uid/passkey',
      route('submitSignInPasskey', 'Checks the passkey’s answer and completes the sign-in', {
        params,
        body: signInPasskeyBody,
        response: { 200: redirectResponse },
      }),
      async (request, reply) => {
        const interaction = await details(request, reply, request.params.uid);
        const device = deviceTokenOf(request);
        const signedIn = await checkPasskey(deps, {
          context: interaction.uid,
          response: request.body.response,
          ip: request.ip,
          device: { token: device, userAgent: request.headers['user-agent'] },
        });
        keepDeviceCookie(reply, deps.config, device);
        const method = signedIn.withPassword
          ? (`pwd+passkey:${signedIn.kind}` as const)
          : (`passkey:${signedIn.kind}` as const);
        // "Trust this browser" skips a second factor, so it means something only after the password.
        const trust = signedIn.withPassword && request.body.trustBrowser ? { token: device } : undefined;
        return {
          redirectTo: await finishOrEnrol(deps.db, helpers, request, reply, {
            uid: interaction.uid,
            userId: signedIn.userId,
            method,
            trust,
          }),
        };
      },
    );
  };
