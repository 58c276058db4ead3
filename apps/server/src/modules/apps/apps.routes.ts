import {
  appCatalogResponseSchema,
  appDetailResponseSchema,
  appGroupOptionsResponseSchema,
  appIdParamsSchema,
  appWithSecretResponseSchema,
  installAppBodySchema,
  installedAppsResponseSchema,
  updateAppBodySchema,
  userApplicationsResponseSchema,
} from '@atrium/contracts/apps';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../lib/errors.ts';
import { principalOf } from '../../plugins/auth-guard.ts';
import { actorOf } from '../organizations/actor.ts';
import * as service from './apps.service.ts';
import { routeOptions } from '../../plugins/route-options.ts';

const tags = ['apps'];

const route = routeOptions({ config: { access: 'admin' }, tags });

/** The app id of the path; one that is not an id at all is an app not found, like any other. */
function appIdOf(params: { appId: string }): string {
  if (!z.uuid().safeParse(params.appId).success) throw notFound('The app');
  return params.appId;
}

/**
 * The catalog ("available apps"), installed apps ("selected apps"), install / change / rotate /
 * uninstall ("app install, provider create, app delete, provider delete"), the groups an app can be
 * given to ("application roles"), and the user-applications call of the apps page.
 */
export const appsRoutes =
  (deps: service.AppsDeps): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/apps/catalog',
      route('listAvailableApps', 'Available apps: the catalog of app templates', {
        response: { 200: appCatalogResponseSchema },
      }),
      async (request) => ({
        templates: await service.listCatalog(deps, principalOf(request).organizationId),
      }),
    );

    app.get(
      '/api/apps/group-options',
      route('listAppGroupOptions', "Application roles: the organisation's groups an app can be opened to", {
        response: { 200: appGroupOptionsResponseSchema },
      }),
      async (request) => ({
        groups: await service.listGroupOptions(deps, principalOf(request).organizationId),
      }),
    );

    app.get(
      '/api/apps',
      route('listSelectedApps', 'Selected apps: the apps the organisation installed', {
        response: { 200: installedAppsResponseSchema },
      }),
      async (request) => ({
        apps: await service.listInstalledApps(deps, principalOf(request).organizationId),
      }),
    );

    app.post(
      '/api/apps',
      route('installApp', 'Install an app: registers its OIDC client and returns the client secret once', {
        body: installAppBodySchema,
        response: { 201: appWithSecretResponseSchema },
      }),
      async (request, reply) =>
        reply.status(201).send(await service.installApp(deps, actorOf(request), request.body)),
    );

    app.get(
      '/api/apps/:appId',
      route(
        'getApp',
        'An installed app: client id, issuer, configuration snippet (without the secret), groups',
        { params: appIdParamsSchema, response: { 200: appDetailResponseSchema } },
      ),
      async (request) => ({
        app: await service.getAppDetail(deps, principalOf(request).organizationId, appIdOf(request.params)),
      }),
    );

    app.put(
      '/api/apps/:appId',
      route('updateApp', "Change an app's name, launch URL, redirect URIs and groups", {
        params: appIdParamsSchema,
        body: updateAppBodySchema,
        response: { 200: appDetailResponseSchema },
      }),
      async (request) => ({
        app: await service.updateApp(deps, actorOf(request), appIdOf(request.params), request.body),
      }),
    );

    app.post(
      '/api/apps/:appId/secret',
      route(
        'rotateAppSecret',
        'Rotate the client secret: the new one is returned once, the old one stops working',
        { params: appIdParamsSchema, response: { 200: appWithSecretResponseSchema } },
      ),
      async (request) => service.rotateAppSecret(deps, actorOf(request), appIdOf(request.params)),
    );

    app.delete(
      '/api/apps/:appId',
      route('uninstallApp', 'Uninstall an app: deletes its client and revokes its grants and tokens', {
        params: appIdParamsSchema,
        response: { 204: z.null() },
      }),
      async (request, reply) => {
        await service.uninstallApp(deps, actorOf(request), appIdOf(request.params));
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/api/me/applications',
      route(
        'getUserApplications',
        "User applications: the caller's groups, the site name and the apps they may open",
        { response: { 200: userApplicationsResponseSchema } },
        { access: 'user' },
      ),
      async (request) => {
        const principal = principalOf(request);
        return service.getUserApplications(deps, principal.organizationId, principal.userId);
      },
    );
  };
