import { apiErrorSchema } from '@atrium/contracts/api-error';
import {
  changeSubscriptionBodySchema,
  mailPlanSchema,
  subscriptionResponseSchema,
} from '@atrium/contracts/subscriptions';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../plugins/auth-guard.ts';
import { actorLabelOf } from '../organizations/actor.ts';
import * as service from './subscriptions.service.ts';
import { routeOptions } from '../../plugins/route-options.ts';

const tags = ['subscriptions'];

const route = routeOptions({ config: { access: 'admin' }, tags });

/** The admin's subscription page and the seed spec's "mail plan details". */
export const subscriptionsRoutes =
  (deps: service.SubscriptionsDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/subscription',
      route(
        'getSubscription',
        "The organisation's plan, seats used of bought, status, dates, plans and history",
        { response: { 200: subscriptionResponseSchema } },
      ),
      async (request) => service.getSubscription(deps, principalOf(request).organizationId),
    );

    app.put(
      '/api/subscription',
      route(
        'changeSubscription',
        'Change plan or seats; refused below what the organisation uses',
        {
          body: changeSubscriptionBodySchema,
          response: { 200: subscriptionResponseSchema, 400: apiErrorSchema, 409: apiErrorSchema },
        },
        { access: 'admin', allowedWhileCancelled: true },
      ),
      async (request) => {
        const principal = principalOf(request);
        return service.changeSubscription(
          deps,
          principal.organizationId,
          { source: 'console', actor: await actorLabelOf(deps.db, principal), ip: request.ip },
          request.body,
        );
      },
    );

    app.get(
      '/api/subscription/mail-plan',
      route('getMailPlan', 'Mail plan details: the quota per mailbox and, where mail is set up, the usage', {
        response: { 200: mailPlanSchema },
      }),
      async (request) => service.getMailPlan(deps, principalOf(request).organizationId),
    );
  };
