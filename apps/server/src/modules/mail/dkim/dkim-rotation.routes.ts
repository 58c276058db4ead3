import { dkimDomainParamsSchema, dkimStateResponseSchema } from '@atrium/contracts/mail-dkim';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import type { JobWorker } from '../../jobs/job-worker.ts';
import { actorOf } from '../../organizations/actor.ts';
import {
  createNextKey,
  discardNextKey,
  retirePreviousKey,
  switchToNextKey,
  type DkimRotationDeps,
} from './dkim-rotation.service.ts';

const tags = ['mail'];
const admin = { access: 'admin' } as const;

/** DKIM key rotation on Mail Settings: admins of the organisation, for its verified domains. */
export const dkimRotationRoutes =
  (deps: { db: Db; config: Config; jobs: JobWorker }): FastifyPluginAsyncZod =>
  async (app) => {
    const service: DkimRotationDeps = { db: deps.db, config: deps.config, wakeJobs: () => deps.jobs.wake() };
    const route = (
      method: 'POST' | 'DELETE',
      url: string,
      operationId: string,
      summary: string,
      run: typeof createNextKey,
    ) =>
      app.route({
        method,
        url: `/api/mail/domains/:domainId/dkim/${url}`,
        config: admin,
        schema: {
          operationId,
          tags,
          summary,
          params: dkimDomainParamsSchema,
          response: { 200: dkimStateResponseSchema },
        },
        handler: async (request) => ({
          dkim: await run(service, actorOf(request), request.params.domainId),
        }),
      });

    route(
      'POST',
      'next',
      'createNextDkimKey',
      'Rotation, step 1: a new key under a new selector, published beside the current one (not signing yet)',
      createNextKey,
    );
    route(
      'POST',
      'switch',
      'switchDkimKey',
      "Rotation, step 2: sign the domain's mail with the new key; the old one stays published",
      switchToNextKey,
    );
    route(
      'DELETE',
      'previous',
      'retireDkimKey',
      'Rotation, step 3: stop publishing the old key',
      retirePreviousKey,
    );
    route(
      'DELETE',
      'next',
      'discardNextDkimKey',
      'Abandon a rotation before the switch: the new key is dropped',
      discardNextKey,
    );
  };
