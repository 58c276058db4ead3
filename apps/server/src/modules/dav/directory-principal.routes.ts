import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { sha256 } from '../../lib/crypto.ts';
import { AddressFailureBudget } from '../auth/sign-in/address-failures.ts';
import { DAV_PATH, DIRECTORY_PRINCIPAL_PATH } from '../devices/device-endpoints.ts';
import { DAV_REQUESTS_PER_CREDENTIAL, DAV_REQUESTS_WITHOUT_CREDENTIALS } from './dav-auth.routes.ts';
import { davCredentials, davUserOf, radicaleUser } from './dav-auth.service.ts';
import { directoryPrincipalMultistatus } from './directory-principal.ts';
import { propRequestOf } from './directory-props.ts';
import { DavXmlError, parseDavXml } from './directory-xml.ts';
import { directoryStateOf } from './directory.repository.ts';
import { DIRECTORY_COLLECTION } from '../../operator/install/dav-files.ts';

const REALM = 'Basic realm="Atrium calendars and contacts", charset="UTF-8"';
const ALLOW = 'OPTIONS, PROPFIND';
/** A PROPFIND body is a few hundred bytes; nothing larger is read. */
const BODY_LIMIT = 64 * 1024;

/**
 * The organisation's address book as a CardDAV account of its own (issue 43 item 2, docs/dav.md):
 * the Apple profile's second CardDAV payload, autoconfig and Autodiscover point at
 * DIRECTORY_PRINCIPAL_PATH, a principal whose address book home lists that address book alone, so
 * iOS and macOS, which sync one address book per account, show the person's own contacts in one
 * account and the directory in this one. Caddy sends the path here as it is (no forward_auth, no
 * Radicale): each request signs in here, as at the gate, with the gate's per-credential budget.
 */
export const directoryPrincipalRoutes =
  (deps: { db: Db; config: Config; provider: Provider }) =>
  async (app: FastifyInstance): Promise<void> => {
    const { db } = deps;
    const failures = new AddressFailureBudget();
    // Clients send PROPFIND bodies as text/xml, application/xml or with no type at all.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) =>
      done(null, body),
    );
    const config = {
      access: 'public' as const,
      rateLimit: {
        timeWindow: '1 minute',
        keyGenerator: (request: FastifyRequest) => {
          const header = request.headers.authorization;
          return header
            ? `dav-principal-credential:${sha256(header)}`
            : `dav-principal-address:${request.ip}`;
        },
        max: (_request: FastifyRequest, key: string) =>
          key.startsWith('dav-principal-credential:')
            ? DAV_REQUESTS_PER_CREDENTIAL
            : DAV_REQUESTS_WITHOUT_CREDENTIALS,
      },
    };

    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const credentials = davCredentials(request.headers.authorization);
      const user =
        credentials.kind === 'none'
          ? undefined
          : await davUserOf({ ...deps, failures }, credentials, request.ip);
      if (!user) {
        return reply
          .status(401)
          .header('www-authenticate', REALM)
          .type('text/plain; charset=utf-8')
          .send('Sign in with your e-mail address and an app password.\n');
      }
      if (request.method === 'OPTIONS') {
        return reply.status(200).header('dav', '1, 3, addressbook').header('allow', ALLOW).send();
      }
      const state = await directoryStateOf(db, user.organizationId);
      if (!state) return reply.status(404).send();
      let asked;
      try {
        asked = propRequestOf(parseDavXml(typeof request.body === 'string' ? request.body : ''));
      } catch (error) {
        if (!(error instanceof DavXmlError)) throw error;
        return reply.status(400).type('text/plain; charset=utf-8').send(`${error.message}\n`);
      }
      const userId = radicaleUser(user);
      return reply
        .status(207)
        .type('application/xml; charset=utf-8')
        .send(
          directoryPrincipalMultistatus({
            principal: DIRECTORY_PRINCIPAL_PATH,
            view: {
              organization: state.name,
              version: state.version,
              homeHref: `${DAV_PATH}${userId}/`,
              collectionHref: `${DAV_PATH}${userId}/${DIRECTORY_COLLECTION}/`,
            },
            depth: request.headers.depth === '0' ? '0' : '1',
            request: asked,
          }),
        );
    };

    for (const url of [DIRECTORY_PRINCIPAL_PATH, DIRECTORY_PRINCIPAL_PATH.replace(/\/$/, '')]) {
      app.route({
        method: ['PROPFIND', 'OPTIONS'],
        url,
        config,
        schema: { hide: true },
        bodyLimit: BODY_LIMIT,
        handler,
      });
      // Anything else: the principal is read only.
      app.route({
        method: ['GET', 'PUT', 'DELETE', 'POST', 'PROPPATCH', 'MKCOL', 'MOVE', 'COPY', 'REPORT'],
        url,
        config,
        schema: { hide: true },
        bodyLimit: BODY_LIMIT,
        handler: async (_request, reply) =>
          reply.status(405).header('allow', ALLOW).type('text/plain; charset=utf-8').send('Read only.\n'),
      });
    }
  };
