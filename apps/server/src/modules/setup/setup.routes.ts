import {
  setupMoveBodySchema,
  setupProgressSchema,
  setupStepBodySchema,
  setupStepParamsSchema,
} from '@atrium/contracts/setup';
import { emptyBodySchema } from '@atrium/contracts/signup';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Db } from '../../db/database.ts';
import { principalOf } from '../../plugins/auth-guard.ts';
import { actorLabelOf } from '../organizations/actor.ts';
import { completeSetup, getProgress, markStep, moveTo } from './setup.service.ts';
import { routeOptions } from '../../plugins/route-options.ts';

const tags = ['setup'];

const route = routeOptions({ config: { access: 'admin' }, tags });

/** The setup wizard's progress per organisation ("admin-setup login status", "admin-setup completion"). */
export const setupRoutes =
  ({ db }: { db: Db }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/setup',
      route(
        'getSetupProgress',
        'Where the setup wizard stands: current step, steps done or skipped, finished or not',
        { response: { 200: setupProgressSchema } },
      ),
      async (request) => getProgress(db, principalOf(request).organizationId),
    );

    app.put(
      '/api/setup/progress',
      route('moveSetupStep', 'Open another page of the wizard (back, or forward up to the first open step)', {
        body: setupMoveBodySchema,
        response: { 200: setupProgressSchema },
      }),
      async (request) => moveTo(db, principalOf(request).organizationId, request.body.currentStep),
    );

    app.post(
      '/api/setup/steps/:step',
      route(
        'markSetupStep',
        'Mark a step done (domain, verify and users only if the data agrees: 409 otherwise), or skipped where the wizard allows it, and move on',
        { params: setupStepParamsSchema, body: setupStepBodySchema, response: { 200: setupProgressSchema } },
      ),
      async (request) =>
        markStep(db, principalOf(request).organizationId, request.params.step, request.body.outcome),
    );

    app.post(
      '/api/setup/complete',
      route('completeSetup', 'Finish the wizard; from now on the admin lands on /dashboard', {
        body: emptyBodySchema,
        response: { 200: setupProgressSchema },
      }),
      async (request) => {
        const principal = principalOf(request);
        return completeSetup(db, principal.organizationId, await actorLabelOf(db, principal));
      },
    );
  };
