import { mailDomainsResponse } from '@atrium/contracts/mail-settings';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import { createDnsClient, type DnsClient } from '../../../lib/dns.ts';
import { actorOf } from '../../organizations/actor.ts';
import { mailDomains } from './mail-settings.service.ts';
import { routeOptions } from '../../../plugins/route-options.ts';

const route = routeOptions({
  config: { access: 'admin', rateLimit: { max: 30, timeWindow: '1 minute' } },
  tags: ['mail'],
});

/** Mail Settings (/mail-settings): whether mail works for each of the organisation's domains. */
export const mailSettingsRoutes =
  (deps: { db: Db; config: Config; dns?: DnsClient }): FastifyPluginAsyncZod =>
  async (app) => {
    const dns = deps.dns ?? createDnsClient(deps.config);
    app.get(
      '/api/mail/domains',
      route(
        'listMailDomains',
        "Each verified domain's MX, SPF, DKIM and DMARC records against what DNS holds now",
        { response: { 200: mailDomainsResponse } },
      ),
      async (request) =>
        mailDomains({ db: deps.db, config: deps.config, dns }, actorOf(request).organizationId),
    );
  };
