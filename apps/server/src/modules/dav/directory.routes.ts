import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type Provider from 'oidc-provider';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { AddressFailureBudget } from '../auth/sign-in/address-failures.ts';
import { DAV_PATH } from '../devices/device-endpoints.ts';
import { davRateLimit } from './dav-rate-limit.ts';
import { davCredentials, davUserOf } from './dav-auth.service.ts';
import type { DavUser } from './dav.repository.ts';
import { mergeDirectoryIntoHome } from './directory-home.ts';
import { CARD_TYPE, etagOf } from './directory-props.ts';
import { DavXmlError, parseDavXml } from './directory-xml.ts';
import { directoryStateOf } from './directory.repository.ts';
import {
  allCards,
  cardNamed,
  propfindCard,
  propfindCollection,
  report,
  type DavAnswer,
  type DirectoryContext,
} from './directory.service.ts';
import { DIRECTORY_COLLECTION } from '../../operator/install/dav-files.ts';

/** Where the organisation's address book is, in every user's home: `/dav/<user>/directory/`. */
export const directoryHref = (userId: string) => `${DAV_PATH}${userId}/${DIRECTORY_COLLECTION}/`;

const REALM = 'Basic realm="Atrium calendars and contacts", charset="UTF-8"';
const READ_METHODS = ['GET', 'HEAD', 'OPTIONS', 'PROPFIND', 'REPORT'];
/** Everything a client might try to change it with: all refused, it is read only. */
const WRITE_METHODS = [
  'PUT',
  'DELETE',
  'POST',
  'PATCH',
  'MKCOL',
  'PROPPATCH',
  'MOVE',
  'COPY',
  'LOCK',
  'UNLOCK',
];
/** WebDAV's methods beyond HTTP's, which Fastify learns before any /dav route is registered (dav.plugin.ts). */
export const WEBDAV_METHODS = ['PROPFIND', 'REPORT', 'MKCOL', 'PROPPATCH', 'MOVE', 'COPY', 'LOCK', 'UNLOCK'];
const ALLOW = READ_METHODS.join(', ');
/** Multigets of a few thousand hrefs fit; nothing a client sends here is larger. */
const BODY_LIMIT = 2 * 1024 * 1024;

/**
 * The organisation's address book, served by Atrium as a read-only CardDAV collection at
 * `/dav/<user>/directory/` (docs/dav.md), and the home's listing (PROPFIND of `/dav/<user>/`),
 * which Radicale answers and Atrium completes with the address book. Caddy sends both here after
 * its forward_auth; each request is signed in again here the same way (app password or the
 * Calendar & Contacts app's token), with the same per-credential budget, so the routes are safe
 * whoever reaches them.
 */
export const directoryRoutes =
  (deps: { db: Db; config: Config; provider: Provider }) =>
  async (app: FastifyInstance): Promise<void> => {
    const { db, config } = deps;
    // Bodies are XML (or vCards refused unread), whatever their declared type.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) =>
      done(null, body),
    );
    const failures = new AddressFailureBudget();
    const routeConfig = {
      rateLimit: davRateLimit('dav-directory'),
    };

    /** The signed-in user, when the path is theirs; otherwise the answer has been sent. */
    async function signedIn(request: FastifyRequest, reply: FastifyReply): Promise<DavUser | undefined> {
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
      if ((request.params as { owner: string }).owner !== user.userId) {
        await reply.status(403).type('text/plain; charset=utf-8').send('Not your collection.\n');
        return undefined;
      }
      return user;
    }

    async function contextOf(user: DavUser): Promise<DirectoryContext | undefined> {
      const state = await directoryStateOf(db, user.organizationId);
      if (!state) return undefined;
      return {
        db,
        organizationId: user.organizationId,
        view: {
          organization: state.name,
          version: state.version,
          homeHref: `${DAV_PATH}${user.userId}/`,
          collectionHref: directoryHref(user.userId),
        },
      };
    }

    const send = (reply: FastifyReply, answer: DavAnswer) =>
      reply.status(answer.status).type('application/xml; charset=utf-8').send(answer.body);

    /** The request's XML; undefined when it had none; the answer sent (400) when unreadable. */
    function bodyOf(
      request: FastifyRequest,
      reply: FastifyReply,
    ): { xml: ReturnType<typeof parseDavXml> } | undefined {
      try {
        return { xml: parseDavXml(typeof request.body === 'string' ? request.body : '') };
      } catch (error) {
        if (!(error instanceof DavXmlError)) throw error;
        void reply.status(400).type('text/plain; charset=utf-8').send(`${error.message}\n`);
        return undefined;
      }
    }

    const readOnly = (reply: FastifyReply) =>
      reply
        .status(403)
        .header('allow', ALLOW)
        .type('text/plain; charset=utf-8')
        .send("The organisation's address book is read only: it lists everyone, kept by Atrium.\n");

    const collection = async (request: FastifyRequest, reply: FastifyReply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      if (!READ_METHODS.includes(request.method)) return readOnly(reply);
      const ctx = await contextOf(user);
      if (!ctx) return reply.status(404).send();
      if (request.method === 'OPTIONS') return options(reply);
      if (request.method === 'GET' || request.method === 'HEAD') {
        return reply
          .type(CARD_TYPE)
          .header('etag', `"${ctx.view.version}"`)
          .send(await allCards(ctx));
      }
      const body = bodyOf(request, reply);
      if (!body) return reply;
      if (request.method === 'REPORT') return send(reply, await report(ctx, body.xml));
      const depth = request.headers.depth === '0' ? '0' : '1';
      return send(reply, await propfindCollection(ctx, depth, body.xml));
    };

    const card = async (request: FastifyRequest, reply: FastifyReply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      if (!READ_METHODS.includes(request.method)) return readOnly(reply);
      const ctx = await contextOf(user);
      if (!ctx) return reply.status(404).send();
      if (request.method === 'OPTIONS') return options(reply);
      const file = (request.params as { '*': string })['*'];
      if (request.method === 'GET' || request.method === 'HEAD') {
        const found = await cardNamed(ctx, file);
        if (!found) return reply.status(404).type('text/plain; charset=utf-8').send('No such card.\n');
        return reply.type(CARD_TYPE).header('etag', etagOf(found.row)).send(found.vcard);
      }
      if (request.method === 'REPORT') return reply.status(403).send();
      const body = bodyOf(request, reply);
      if (!body) return reply;
      const answer = await propfindCard(ctx, file, body.xml);
      if (!answer) return reply.status(404).type('text/plain; charset=utf-8').send('No such card.\n');
      return send(reply, answer);
    };

    const home = async (request: FastifyRequest, reply: FastifyReply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      const radicale = config.davRadicale;
      if (!radicale) return reply.status(404).send();
      const ctx = await contextOf(user);
      const body = typeof request.body === 'string' ? request.body : '';
      const answer = await mergeDirectoryIntoHome({
        radicale,
        user: user.userId,
        depth: typeof request.headers.depth === 'string' ? request.headers.depth : undefined,
        body,
        view: ctx?.view,
      });
      return reply
        .status(answer.status)
        .type(answer.contentType ?? 'text/plain; charset=utf-8')
        .send(answer.body);
    };

    const methods = [...READ_METHODS, ...WRITE_METHODS].filter((m) => m !== 'HEAD') as HTTPMethods[];
    const base = `${DAV_PATH}:owner/${DIRECTORY_COLLECTION}`;
    for (const url of [base, `${base}/`]) {
      app.route({ method: methods, url, config: routeConfig, handler: collection, bodyLimit: BODY_LIMIT });
    }
    app.route({
      method: methods,
      url: `${base}/*`,
      config: routeConfig,
      handler: card,
      bodyLimit: BODY_LIMIT,
    });
    for (const url of [`${DAV_PATH}:owner`, `${DAV_PATH}:owner/`]) {
      app.route({ method: 'PROPFIND', url, config: routeConfig, handler: home, bodyLimit: BODY_LIMIT });
    }
  };

function options(reply: FastifyReply) {
  return reply.status(200).header('dav', '1, 3, addressbook, extended-mkcol').header('allow', ALLOW).send();
}
