import { organizationProfileBodySchema, organizationProfileSchema } from '@atrium/contracts/organizations';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { principalOf } from '../../plugins/auth-guard.ts';
import { actorLabelOf } from './actor.ts';
import { getOrganizationProfile, saveOrganizationProfile } from './organization-profile.service.ts';
import { routeOptions } from '../../plugins/route-options.ts';

const tags = ['organization'];

const route = routeOptions({ config: { access: 'admin' }, tags });

/** The seed spec's "organisation profile" call family: read and edit the caller's organisation. */
export const organizationProfileRoutes =
  (deps: { db: Db; config: Config }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/organization',
      route(
        'getOrganizationProfile',
        "The caller's organisation: name, legal name, industry, size, country, time zone, site",
        { response: { 200: organizationProfileSchema } },
      ),
      async (request) => getOrganizationProfile(deps, principalOf(request).organizationId),
    );

    app.put(
      '/api/organization',
      route(
        'updateOrganizationProfile',
        'Change the organisation profile (the site name stays as chosen at sign-up)',
        { body: organizationProfileBodySchema, response: { 200: organizationProfileSchema } },
      ),
      async (request) => {
        const principal = principalOf(request);
        return saveOrganizationProfile(
          deps,
          principal.organizationId,
          await actorLabelOf(deps.db, principal),
          request.body,
          request.ip,
        );
      },
    );
  };
