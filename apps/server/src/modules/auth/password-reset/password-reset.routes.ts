import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  passwordResetCompleteBody,
  passwordResetLinkBody,
  passwordResetStartBody,
  passwordResetStartResponse,
} from '@atrium/contracts/auth';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import type { BackgroundWork } from '../../../lib/background-work.ts';
import { sha256 } from '../../../lib/crypto.ts';
import type { Mailer } from '../../../lib/mail.ts';
import { deviceHashOf, deviceTokenOf, keepDeviceCookie } from '../sign-in/known-devices.ts';
import { completePasswordReset, startPasswordReset } from './password-reset.service.ts';
import { completePasswordResetByLink } from './password-reset-link.service.ts';
import { routeOptions } from '../../../plugins/route-options.ts';

const tags = ['password-reset'];
const tight = { max: 10, timeWindow: '1 minute' };

const route = routeOptions({ config: { access: 'public', rateLimit: tight }, tags });

/** Forgot password: e-mail → code (or the e-mail's link) and new password → everything revoked. */
export const passwordResetRoutes =
  (deps: { db: Db; config: Config; mailer: Mailer; background: BackgroundWork }): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/api/password-reset/start',
      route(
        'startPasswordReset',
        'E-mails a reset code if an account exists (the answer is the same either way)',
        { body: passwordResetStartBody, response: { 200: passwordResetStartResponse } },
      ),
      async (request, reply) => {
        // The code and its tries belong to this browser (issue 38): its device cookie, set here
        // if it had none (for every address alike, so the answer still tells nothing).
        const device = deviceTokenOf(request);
        keepDeviceCookie(reply, deps.config, device);
        const { resendAvailableAt } = startPasswordReset(
          deps,
          { email: request.body.email, browser: sha256(device) },
          request.log,
        );
        return {
          message: 'If an account exists for this address, we sent a code to it.',
          resendAvailableAt: resendAvailableAt.toISOString(),
        };
      },
    );

    app.post(
      '/api/password-reset/complete',
      route(
        'completePasswordReset',
        'Sets a new password with the e-mailed code; ends every session of the account',
        { body: passwordResetCompleteBody, response: { 200: z.object({ message: z.string() }) } },
      ),
      async (request) => {
        await completePasswordReset(deps, {
          ...request.body,
          ip: request.ip,
          browser: deviceHashOf(request),
        });
        return { message: 'Your password was changed. Sign in with your new password.' };
      },
    );

    app.post(
      '/api/password-reset/link',
      route(
        'completePasswordResetByLink',
        "Sets a new password with a reset e-mail's link, from any browser; ends every session of the account",
        { body: passwordResetLinkBody, response: { 200: z.object({ message: z.string() }) } },
      ),
      async (request) => {
        await completePasswordResetByLink(deps, { ...request.body, ip: request.ip });
        return { message: 'Your password was changed. Sign in with your new password.' };
      },
    );
  };
