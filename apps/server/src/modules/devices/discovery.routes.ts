import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { badRequest } from '../../lib/errors.ts';
import { routeOptions } from '../../plugins/route-options.ts';
import { DAV_PATH, deviceEndpoints } from './device-endpoints.ts';
import { domainOfRequest, requireVerifiedMailDomain } from './discovery.service.ts';
import { autoconfigXml } from './protocols/autoconfig.ts';
import {
  AUTODISCOVER_RESPONSE_SCHEMA,
  autodiscoverXml,
  parseAutodiscoverRequest,
} from './protocols/autodiscover.ts';

const route = routeOptions({
  config: { access: 'public', rateLimit: { max: 60, timeWindow: '1 minute' } },
  tags: ['device discovery'],
});

const addressQuery = z.object({
  emailaddress: z.string().max(320, 'An e-mail address has at most 320 characters').optional(),
});
/** Some clients send `email` or `Email` instead of Thunderbird's `emailaddress`. */
const autodiscoverQuery = addressQuery.extend({
  email: z.string().max(320).optional(),
  Email: z.string().max(320).optional(),
});

const XML_TYPES = ['text/xml', 'application/xml'];
const XML_BODY_LIMIT = 16 * 1024;
/** The request document as text, read by parseAutodiscoverRequest (which refuses a missing one in words). */
const autodiscoverBody = z
  .string()
  .max(XML_BODY_LIMIT)
  .nullish()
  .describe('`<Autodiscover><Request><EMailAddress>…` in the Outlook request schema (2006)');
const AUTODISCOVER_PATHS = ['/autodiscover/autodiscover.xml', '/Autodiscover/Autodiscover.xml'];

const sendXml = (reply: FastifyReply, xml: string) =>
  reply.header('cache-control', 'no-store').type('application/xml; charset=utf-8').send(xml);

/**
 * How mail, calendar and contacts clients find their servers from an address alone
 * (docs/devices.md): RFC 6764's .well-known names, Thunderbird's autoconfig, and Outlook's
 * Autodiscover. Served on every host that reaches Atrium: the autoconfig and autodiscover names of
 * the DNS mapping point at the organisation's site.
 */
export const discoveryRoutes =
  (deps: { db: Db; config: Config }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db, config } = deps;
    const endpoints = deviceEndpoints(config);

    app.addContentTypeParser(
      XML_TYPES,
      { parseAs: 'string', bodyLimit: XML_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );

    for (const service of ['caldav', 'carddav'] as const) {
      const options = route(
        service === 'caldav' ? 'wellKnownCaldav' : 'wellKnownCarddav',
        `RFC 6764: redirects ${service === 'caldav' ? 'CalDAV' : 'CardDAV'} clients to the DAV server`,
        {},
      );
      // On MAIL_HOST itself a path, keeping the scheme and port the client came with; on any
      // other name (an organisation's own domain) MAIL_HOST's address.
      const handler = async (request: FastifyRequest, reply: FastifyReply) =>
        reply.redirect(request.hostname === endpoints.mailHost ? DAV_PATH : endpoints.davUrl, 301);
      app.get(`/.well-known/${service}`, options, handler);
      // The same answer to PROPFIND, which OpenAPI 3.1 has no place for: left out of the document.
      app.route({
        method: 'PROPFIND',
        url: `/.well-known/${service}`,
        config: options.config,
        schema: { hide: true },
        handler,
      });
    }

    const autoconfig = async (address: string | undefined, host: string) => {
      const domain = domainOfRequest(address, host);
      return autoconfigXml(await requireVerifiedMailDomain(db, domain), endpoints);
    };
    for (const [url, operationId] of [
      ['/mail/config-v1.1.xml', 'thunderbirdAutoconfig'],
      ['/.well-known/autoconfig/mail/config-v1.1.xml', 'thunderbirdAutoconfigWellKnown'],
    ] as const) {
      app.get(
        url,
        route(operationId, 'Thunderbird autoconfig (clientConfig 1.1) for an address of a verified domain', {
          querystring: addressQuery,
        }),
        async (request, reply) =>
          sendXml(reply, await autoconfig(request.query.emailaddress, request.hostname)),
      );
    }

    for (const [index, url] of AUTODISCOVER_PATHS.entries()) {
      app.post(
        url,
        route(
          index === 0 ? 'outlookAutodiscover' : 'outlookAutodiscoverCapitalised',
          'Outlook Autodiscover (POX): the IMAP and SMTP servers of an address of a verified domain',
          { consumes: XML_TYPES, body: autodiscoverBody },
        ),
        async (request, reply) => {
          const parsed = parseAutodiscoverRequest(request.body ?? '');
          if (!parsed.ok) throw badRequest(parsed.problem);
          if (parsed.acceptableSchema && parsed.acceptableSchema !== AUTODISCOVER_RESPONSE_SCHEMA) {
            throw badRequest(`Only the Outlook response schema ${AUTODISCOVER_RESPONSE_SCHEMA} is offered`);
          }
          await requireVerifiedMailDomain(db, domainOfRequest(parsed.email, undefined));
          return sendXml(reply, autodiscoverXml(parsed.email.trim(), endpoints));
        },
      );
      // Lenient clients ask with GET and the address in the query.
      app.get(
        url,
        route(
          index === 0 ? 'outlookAutodiscoverGet' : 'outlookAutodiscoverGetCapitalised',
          'Autodiscover for clients that ask with GET ?emailaddress=',
          { querystring: autodiscoverQuery },
        ),
        async (request, reply) => {
          const { emailaddress, email, Email } = request.query;
          const address = emailaddress ?? email ?? Email;
          if (address === undefined)
            throw badRequest('Give the address as ?emailaddress=, or POST the request XML');
          await requireVerifiedMailDomain(db, domainOfRequest(address, undefined));
          return sendXml(reply, autodiscoverXml(address.trim(), endpoints));
        },
      );
    }
  };
