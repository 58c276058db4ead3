import {
  addDomainBodySchema,
  deletionCheckSchema,
  dnsMappingSchema,
  domainIdParamsSchema,
  domainListSchema,
  domainResponseSchema,
  verifyDomainResponseSchema,
  ZONE_FILE_MEDIA_TYPE,
  zoneFileName,
} from '@atrium/contracts/domains';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { createDnsClient, type DnsClient } from '../../lib/dns.ts';
import { createDomainRecheckJob } from './domain-recheck.job.ts';
import { actorOf } from '../organizations/actor.ts';
import * as service from './domains.service.ts';
import { proxyHostsRoutes } from './proxy-hosts.routes.ts';
import { routeOptions } from '../../plugins/route-options.ts';

const tags = ['domains'];
const admin = { access: 'admin' } as const;

const route = routeOptions({ config: admin, tags });

/**
 * The seed spec's "domain: TXT record, add, DNS mapping, DNS retrieval, verification, view,
 * deletion check, erase", the proxy-host check a reverse proxy asks before issuing a
 * certificate, and (with `runJobs`) the background re-check of pending domains.
 */
export const domainsRoutes =
  (deps: { db: Db; config: Config; runJobs: boolean; dns?: DnsClient }): FastifyPluginAsyncZod =>
  async (app) => {
    const dns = deps.dns ?? createDnsClient(deps.config);
    const serviceDeps: service.DomainsDeps = { db: deps.db, config: deps.config, dns };

    if (deps.runJobs) {
      const job = createDomainRecheckJob({ ...serviceDeps, log: app.log });
      app.addHook('onReady', async () => job.start());
      app.addHook('onClose', async () => job.stop());
    }

    await app.register(proxyHostsRoutes({ db: deps.db, config: deps.config }));

    app.get(
      '/api/domains',
      route('listDomains', "The organisation's domains with state, primary mark and last check", {
        response: { 200: domainListSchema },
      }),
      async (request) => service.listDomains(serviceDeps, actorOf(request)),
    );

    app.post(
      '/api/domains',
      route('addDomain', 'Add a domain: normalised to punycode, with its verification token and DKIM key', {
        body: addDomainBodySchema,
        response: { 201: domainResponseSchema },
      }),
      async (request, reply) =>
        reply
          .status(201)
          .send({ domain: await service.addDomain(serviceDeps, actorOf(request), request.body.name) }),
    );

    app.get(
      '/api/domains/:id',
      route('getDomain', 'View a domain, with the TXT record that proves ownership', {
        params: domainIdParamsSchema,
        response: { 200: domainResponseSchema },
      }),
      async (request) => ({
        domain: await service.getDomain(serviceDeps, actorOf(request), request.params.id),
      }),
    );

    app.post(
      '/api/domains/:id/verify',
      route(
        'verifyDomain',
        'Look the TXT record up now: verified, no record, wrong record, or lookup failed',
        { params: domainIdParamsSchema, response: { 200: verifyDomainResponseSchema } },
      ),
      async (request) => service.verifyDomain(serviceDeps, actorOf(request), request.params.id),
    );

    app.post(
      '/api/domains/:id/primary',
      route('makeDomainPrimary', 'Make a verified domain the primary one', {
        params: domainIdParamsSchema,
        response: { 200: domainResponseSchema },
      }),
      async (request) => ({
        domain: await service.makePrimary(serviceDeps, actorOf(request), request.params.id),
      }),
    );

    app.get(
      '/api/domains/:id/dns-records',
      route(
        'getDomainDnsMapping',
        'DNS mapping: the MX, SPF, DKIM, DMARC and CNAME records to publish, against what DNS holds now',
        { params: domainIdParamsSchema, response: { 200: dnsMappingSchema } },
      ),
      async (request) => service.dnsMapping(serviceDeps, actorOf(request), request.params.id),
    );

    app.get(
      '/api/domains/:id/zone-file',
      route(
        'getDomainZoneFile',
        'The DNS mapping as a BIND zone-file fragment to download: $ORIGIN, TTL 3600, long TXT values split into 255-byte strings',
        { params: domainIdParamsSchema, produces: [ZONE_FILE_MEDIA_TYPE] },
      ),
      async (request, reply) => {
        const zone = await service.domainZoneFile(serviceDeps, actorOf(request), request.params.id);
        return reply
          .header('content-type', `${ZONE_FILE_MEDIA_TYPE}; charset=utf-8`)
          .header('content-disposition', `attachment; filename="${zoneFileName(zone.name)}"`)
          .header('cache-control', 'no-store')
          .send(zone.text);
      },
    );

    app.get(
      '/api/domains/:id/deletion-check',
      route('checkDomainDeletion', 'Whether the domain can be deleted, and which users or rules stop it', {
        params: domainIdParamsSchema,
        response: { 200: deletionCheckSchema },
      }),
      async (request) => service.deletionCheck(serviceDeps, actorOf(request), request.params.id),
    );

    app.delete(
      '/api/domains/:id',
      route('deleteDomain', 'Erase a domain and its DKIM key (refused while the deletion check refuses)', {
        params: domainIdParamsSchema,
        response: { 204: z.null() },
      }),
      async (request, reply) => {
        await service.deleteDomain(serviceDeps, actorOf(request), request.params.id);
        return reply.status(204).send(null);
      },
    );
  };
