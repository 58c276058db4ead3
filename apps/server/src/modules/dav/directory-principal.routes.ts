import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { AddressFailureBudget } from '../auth/sign-in/address-failures.ts';
import { CONTACTS_PRINCIPAL_PATH, DAV_PATH, DIRECTORY_PRINCIPAL_PATH } from '../devices/device-endpoints.ts';
import { davRateLimit } from './dav-rate-limit.ts';
import { davCredentials, davUserOf, radicaleUser } from './dav-auth.service.ts';
import {
  directoryPrincipalMultistatus,
  ownAddressBooksMultistatus,
  principalResponse,
} from './directory-principal.ts';
import { propfindHome } from './radicale-client.ts';
import { propRequestOf } from './directory-props.ts';
import { DavXmlError, multistatusXml, parseDavXml } from './directory-xml.ts';
import { directoryStateOf } from './directory.repository.ts';
import { DIRECTORY_COLLECTION } from '../../operator/install/dav-files.ts';

const REALM = 'Basic realm="Atrium calendars and contacts", charset="UTF-8"';
const ALLOW = 'OPTIONS, PROPFIND';
/** A PROPFIND body is a few hundred bytes; nothing larger is read. */
const BODY_LIMIT = 64 * 1024;

/**
 * Apple's two CardDAV accounts (issue 43 item 2, docs/dav.md): iOS and macOS sync one address book
 * per account, so the profile points one account at CONTACTS_PRINCIPAL_PATH, whose home lists the
 * person's own address books (Radicale's listing, filtered), and another at
 * DIRECTORY_PRINCIPAL_PATH, whose home lists the organisation's address book alone; autoconfig and
 * Autodiscover name the second too. Each principal is its own home and its own
 * current-user-principal (iOS follows that property). Caddy sends /dav/principals/ here after the
 * gate; each request signs in here again, with the gate's per-credential budget.
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
      rateLimit: davRateLimit('dav-principal'),
    };

    type Signed = { userId: string; organizationId: string; asked: ReturnType<typeof propRequestOf> };
    /** The signed-in user and what they asked for; otherwise the answer has been sent. */
    const signIn = async (request: FastifyRequest, reply: FastifyReply): Promise<Signed | undefined> => {
      const credentials = davCredentials(request.headers.authorization);
      const user =
        credentials.kind === 'none'
          ? undefined
          : await davUserOf({ ...deps, failures }, credentials, request.ip);
      if (!user) {
        await reply
          .status(401)
          .header('www-authenticate', REALM)
          .type('text/plain; charset=utf-8')
          .send('Sign in with your e-mail address and an app password.\n');
        return undefined;
      }
      if (request.method === 'OPTIONS') {
        await reply.status(200).header('dav', '1, 3, addressbook').header('allow', ALLOW).send();
        return undefined;
      }
      try {
        const asked = propRequestOf(parseDavXml(bodyOf(request)));
        return { userId: radicaleUser(user), organizationId: user.organizationId, asked };
      } catch (error) {
        if (!(error instanceof DavXmlError)) throw error;
        await reply.status(400).type('text/plain; charset=utf-8').send(`${error.message}\n`);
        return undefined;
      }
    };
    const depthOf = (request: FastifyRequest) => (request.headers.depth === '0' ? '0' : '1');
    const directoryOf = (userId: string) => `${DAV_PATH}${userId}/${DIRECTORY_COLLECTION}/`;
    const multistatus = (reply: FastifyReply, xml: string) =>
      reply.status(207).type('application/xml; charset=utf-8').send(xml);

    const directory = async (request: FastifyRequest, reply: FastifyReply) => {
      const user = await signIn(request, reply);
      if (!user) return reply;
      const state = await directoryStateOf(db, user.organizationId);
      if (!state) return reply.status(404).send();
      return multistatus(
        reply,
        directoryPrincipalMultistatus({
          principal: DIRECTORY_PRINCIPAL_PATH,
          view: {
            organization: state.name,
            version: state.version,
            homeHref: `${DAV_PATH}${user.userId}/`,
            collectionHref: directoryOf(user.userId),
          },
          depth: depthOf(request),
          request: user.asked,
        }),
      );
    };

    const contacts = async (request: FastifyRequest, reply: FastifyReply) => {
      const user = await signIn(request, reply);
      if (!user) return reply;
      const principal = (standalone: boolean) =>
        principalResponse(CONTACTS_PRINCIPAL_PATH, 'Contacts', user.asked, standalone);
      const radicale = deps.config.davRadicale;
      if (depthOf(request) === '0' || !radicale) {
        return multistatus(reply, multistatusXml([principal(false)]));
      }
      const listing = await propfindHome(radicale, user.userId, {
        depth: '1',
        body: bodyOf(request),
        scriptName: DAV_PATH.replace(/\/$/, ''),
      }).catch(() => undefined);
      const answer =
        listing?.status === 207
          ? ownAddressBooksMultistatus(listing.text, principal(true), directoryOf(user.userId))
          : undefined;
      if (answer === undefined) {
        return reply
          .status(503)
          .header('retry-after', '10')
          .type('text/plain; charset=utf-8')
          .send('The calendar server did not answer: try again in a moment.\n');
      }
      return multistatus(reply, answer);
    };

    const readOnly = async (_request: FastifyRequest, reply: FastifyReply) =>
      reply.status(405).header('allow', ALLOW).type('text/plain; charset=utf-8').send('Read only.\n');
    for (const [path, handler] of [
      [DIRECTORY_PRINCIPAL_PATH, directory],
      [CONTACTS_PRINCIPAL_PATH, contacts],
    ] as const) {
      for (const url of [path, path.replace(/\/$/, '')]) {
        app.route({
          method: ['PROPFIND', 'OPTIONS'],
          url,
          config,
          schema: { hide: true },
          bodyLimit: BODY_LIMIT,
          handler,
        });
        // Anything else: the principals are read only.
        app.route({
          method: ['GET', 'PUT', 'DELETE', 'POST', 'PROPPATCH', 'MKCOL', 'MOVE', 'COPY', 'REPORT'],
          url,
          config,
          schema: { hide: true },
          bodyLimit: BODY_LIMIT,
          handler: readOnly,
        });
      }
    }
  };

const bodyOf = (request: FastifyRequest) => (typeof request.body === 'string' ? request.body : '');
