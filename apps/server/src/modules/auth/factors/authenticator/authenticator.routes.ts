import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  authenticatorEnrolment,
  authenticatorStatus,
  confirmAuthenticatorBody,
  currentPasswordBody,
  authenticatorConfirmedResponse,
  recoveryCodesResponse,
} from '@atrium/contracts/authenticator';
import type { Config } from '../../../../config.ts';
import type { Db } from '../../../../db/database.ts';
import type { Mailer } from '../../../../lib/mail.ts';
import { principalOf } from '../../../../plugins/auth-guard.ts';
import {
  authenticatorStatus as statusOf,
  confirmEnrolment,
  regenerateRecoveryCodes,
  removeAuthenticator,
  startEnrolment,
} from './authenticator.service.ts';
import { routeOptions } from '../../../../plugins/route-options.ts';

const tags = ['profile'];
/** Guessing a confirmation code or the password is slowed down here too. */
const limited = { max: 10, timeWindow: '1 minute' };

const route = routeOptions({ config: { access: 'user', rateLimit: limited }, tags });

/** The signed-in user's authenticator app and recovery codes (/profile, issue 17). */
export const authenticatorRoutes =
  (deps: { db: Db; config: Config; mailer: Mailer }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db, config } = deps;
    const ownerOf = (request: Parameters<typeof principalOf>[0]) => {
      const principal = principalOf(request);
      return { organizationId: principal.organizationId, userId: principal.userId, ip: request.ip };
    };

    app.get(
      '/api/profile/authenticator',
      route(
        'getOwnAuthenticator',
        'Whether you have an authenticator app, and how many recovery codes are left',
        { response: { 200: authenticatorStatus } },
        { access: 'user' },
      ),
      async (request) => statusOf(db, ownerOf(request)),
    );

    app.post(
      '/api/profile/authenticator',
      route(
        'startAuthenticatorEnrolment',
        'A new secret and its QR code for your authenticator app, until a first code confirms it',
        { response: { 200: authenticatorEnrolment } },
      ),
      async (request) => startEnrolment(db, config, ownerOf(request)),
    );

    app.post(
      '/api/profile/authenticator/confirm',
      route(
        'confirmAuthenticatorEnrolment',
        'Confirms the app with its first code; returns ten recovery codes, shown once',
        { body: confirmAuthenticatorBody, response: { 200: authenticatorConfirmedResponse } },
      ),
      async (request) => confirmEnrolment(deps, ownerOf(request), request.body.code),
    );

    app.post(
      '/api/profile/authenticator/remove',
      route(
        'removeOwnAuthenticator',
        'Removes your authenticator app and its recovery codes (current password required)',
        { body: currentPasswordBody, response: { 204: z.null() } },
      ),
      async (request, reply) => {
        await removeAuthenticator(deps, ownerOf(request), request.body.currentPassword);
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/api/profile/recovery-codes',
      route(
        'regenerateRecoveryCodes',
        'Ten new recovery codes, shown once; the old ones stop working (current password required)',
        { body: currentPasswordBody, response: { 200: recoveryCodesResponse } },
      ),
      async (request) => regenerateRecoveryCodes(deps, ownerOf(request), request.body.currentPassword),
    );
  };
