import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  deviceProfileParams,
  deviceSetupStatusResponse,
  mobileconfigBody,
  setUpDeviceBody,
  setUpDeviceResponse,
} from '@atrium/contracts/devices';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { principalOf } from '../../plugins/auth-guard.ts';
import { routeOptions } from '../../plugins/route-options.ts';
import { appPasswordOwner } from '../mail/app-passwords/app-passwords.service.ts';
import { devicesAvailable } from './device-endpoints.ts';
import { MOBILECONFIG_TYPE } from './protocols/mobileconfig.ts';
import { PROFILE_LINK_PATH, ownMobileconfig, profileFromLink, setUpDevice } from './device-setup.service.ts';

const route = routeOptions({
  config: { access: 'user', rateLimit: { max: 20, timeWindow: '1 minute' } },
  tags: ['profile'],
});

/**
 * The profile: signed (DER) when the operator gives a certificate, else the plist, which devices
 * show as "Unverified" (docs/devices.md). It holds a password: never cached.
 */
const sendProfile = (reply: FastifyReply, plist: string | Buffer) =>
  reply
    .header('cache-control', 'no-store')
    .header('content-disposition', 'attachment; filename="atrium.mobileconfig"')
    .type(MOBILECONFIG_TYPE)
    .send(plist);

/** "Set up a device" on /profile (docs/devices.md). */
export const deviceSetupRoutes =
  (deps: { db: Db; config: Config }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db, config } = deps;
    const ownerOf = (request: Parameters<typeof principalOf>[0]) =>
      appPasswordOwner(db, principalOf(request), request.ip);

    app.get(
      '/api/profile/devices',
      route(
        'deviceSetupStatus',
        'Whether this server offers "Set up a device": false while the operator has not set MAIL_HOST (or it names localhost)',
        { response: { 200: deviceSetupStatusResponse } },
        // Read by the apps page, the dashboard and /profile: the global limit, not set-up's.
        { access: 'user' },
      ),
      async () => ({ available: devicesAvailable(config) }),
    );

    app.post(
      '/api/profile/devices',
      route(
        'setUpDevice',
        'Creates an app password named after a device, with the values to type and, for Apple devices, a one-time profile link',
        { body: setUpDeviceBody, response: { 201: setUpDeviceResponse } },
      ),
      async (request, reply) =>
        reply.status(201).send(await setUpDevice(db, config, await ownerOf(request), request.body)),
    );

    app.post(
      '/api/profile/devices/mobileconfig',
      route(
        'downloadOwnMobileconfig',
        'Creates an app password named after the device and answers an Apple configuration profile (mail, CalDAV, CardDAV) holding it',
        { body: mobileconfigBody },
      ),
      async (request, reply) =>
        sendProfile(reply, await ownMobileconfig(db, config, await ownerOf(request), request.body.name)),
    );

    app.get(
      `${PROFILE_LINK_PATH}/:token`,
      route(
        'openDeviceProfileLink',
        'A one-time link to an Apple configuration profile (from "Set up a device"); 404 once used or expired',
        { params: deviceProfileParams },
        { access: 'public', rateLimit: { max: 30, timeWindow: '1 minute' } },
      ),
      async (request, reply) => sendProfile(reply, await profileFromLink(db, config, request.params.token)),
    );
  };
