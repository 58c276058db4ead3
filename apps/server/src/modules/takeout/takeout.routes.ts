import { createReadStream } from 'node:fs';
import {
  takeoutDownloadLinkSchema,
  takeoutDownloadQuerySchema,
  takeoutParamsSchema,
  takeoutSchema,
  takeoutsSchema,
} from '@atrium/contracts/takeout';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { JobWorker } from '../jobs/job-worker.ts';
import { actorOf } from '../organizations/actor.ts';
import { principalOf } from '../../plugins/auth-guard.ts';
import { routeOptions } from '../../plugins/route-options.ts';
import { registerTakeoutJob } from './takeout.job.ts';
import {
  createDownloadLink,
  listOrganizationTakeouts,
  startTakeout,
  takeoutForDownload,
  type TakeoutDeps,
} from './takeout.service.ts';

// Exporting is what a customer who leaves needs most: a cancelled subscription (read and export
// only) still allows it.
const ADMIN = { access: 'admin' as const, allowedWhileCancelled: true };
const route = routeOptions({ config: ADMIN, tags: ['takeout'] });

/** Takeout (docs/takeout.md): the organisation's own export. Admins only; other orgs' exports are 404. */
export const takeoutRoutes =
  (deps: TakeoutDeps & { jobs: JobWorker }): FastifyPluginAsyncZod =>
  async (app) => {
    registerTakeoutJob(deps.jobs, deps, app.log.child({ module: 'takeout' }));

    app.post(
      '/api/takeout',
      route('startTakeout', 'Export everything of the organisation as one archive, as a background job', {
        response: { 202: takeoutSchema },
      }),
      async (request, reply) => reply.status(202).send(await startTakeout(deps, deps.jobs, actorOf(request))),
    );

    app.get(
      '/api/takeout',
      route('listTakeouts', 'The latest exports with their progress, newest first', {
        response: { 200: takeoutsSchema },
      }),
      async (request) => ({
        takeouts: await listOrganizationTakeouts(deps.db, principalOf(request).organizationId),
      }),
    );

    app.post(
      '/api/takeout/:id/download-link',
      route(
        'createTakeoutDownloadLink',
        'A link that downloads the archive once, within a minute, with this session; 410 once it expired',
        { params: takeoutParamsSchema, response: { 201: takeoutDownloadLinkSchema } },
      ),
      async (request, reply) =>
        reply
          .status(201)
          .header('cache-control', 'no-store')
          .send(
            await createDownloadLink(
              deps,
              actorOf(request),
              principalOf(request).sessionId,
              request.params.id,
            ),
          ),
    );

    app.get(
      '/api/takeout/:id/download',
      route(
        'downloadTakeout',
        'The archive of a finished export (.tar.gz), with a link from createTakeoutDownloadLink made by this session; 403 without one, 410 once the export expired',
        {
          params: takeoutParamsSchema,
          querystring: takeoutDownloadQuerySchema,
          produces: ['application/gzip'],
        },
      ),
      async (request, reply) => {
        const archive = await takeoutForDownload(
          deps,
          actorOf(request),
          principalOf(request).sessionId,
          request.params.id,
          request.query.link,
        );
        return reply
          .header('content-type', 'application/gzip')
          .header('content-length', String(archive.size))
          .header('content-disposition', `attachment; filename="${archive.name}"`)
          .header('cache-control', 'no-store')
          .send(createReadStream(archive.file));
      },
    );
  };
