import {
  acceptedInvitationSchema,
  acceptInvitationSchema,
  invitationParamsSchema,
  invitationSchema,
} from '@atrium/contracts/invitations';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { Mailer } from '../../lib/mail.ts';
import { bindTicketToBrowser } from '../auth/sign-in/sign-in-tickets.ts';
import { acceptLink, describeLink } from './invitations.service.ts';
import { routeOptions } from '../../plugins/route-options.ts';

// Public: the token is the credential. Tight per-address limits keep guessing pointless.
const PUBLIC_LIMIT = { access: 'public' as const, rateLimit: { max: 20, timeWindow: '1 minute' } };

const route = routeOptions({ config: PUBLIC_LIMIT, tags: ['invitations'] });

/** `/invite/:token` and `/reset-password/:token` pages talk to these two endpoints. */
export const invitationsRoutes =
  (deps: { db: Db; config: Config; mailer: Mailer }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/invitations/:token',
      route('getInvitation', 'Check a set-password link (invitation or reset) before choosing a password', {
        params: invitationParamsSchema,
        response: { 200: invitationSchema },
      }),
      async (request) => describeLink(deps.db, request.params.token),
    );

    app.post(
      '/api/invitations/:token/accept',
      route('acceptInvitation', 'Set the password behind a set-password link; the link then stops working', {
        params: invitationParamsSchema,
        body: acceptInvitationSchema,
        response: { 200: acceptedInvitationSchema },
      }),
      async (request, reply) => {
        const accepted = await acceptLink(deps, request.params.token, request.body.password, request.ip);
        bindTicketToBrowser(reply, deps.config, accepted.next);
        return accepted;
      },
    );
  };
