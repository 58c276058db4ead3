import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { apiErrorSchema } from '@atrium/contracts/api-error';
import type { Db } from '../../../db/database.ts';
import { AddressFailureBudget } from '../../auth/sign-in/address-failures.ts';
import { signInWithAppPassword } from '../app-passwords/app-password-sign-in.ts';
import { isMailClient, type MailClient } from '../mail-client.ts';
import { routeOptions } from '../../../plugins/route-options.ts';

const grantBody = z.object({
  grant_type: z.literal('password', { message: 'expected "password"' }),
  username: z.string().min(1, 'expected the mail address').max(320),
  password: z.string().min(1, 'expected the app password').max(256),
  client_id: z.string().max(200).optional(),
  client_secret: z.string().max(200).optional(),
  scope: z.string().max(200).optional(),
});

const oauthError = z.object({ error: z.string(), error_description: z.string() });

/**
 * Every mail client reaches this route through Dovecot's one address: the limit is counted per
 * client address Dovecot names (unproven until the client secret is checked, but a request
 * without that secret learns nothing: invalid_client).
 */
const route = routeOptions({
  config: {
    access: 'public',
    rateLimit: {
      max: 600,
      timeWindow: '1 minute',
      keyGenerator: (request) =>
        `${request.ip}|${dovecotRemoteAddress(request.headers['x-dovecot-auth-remote']) ?? ''}`,
    },
  },
  tags: ['mail'],
});

/** Basic credentials, as Dovecot may send the client's id and secret either way. */
function basicCredentials(header: string | undefined): { id?: string; secret?: string } {
  if (!header?.startsWith('Basic ')) return {};
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return {};
  return {
    id: decodeURIComponent(decoded.slice(0, colon)),
    secret: decodeURIComponent(decoded.slice(colon + 1)),
  };
}

/**
 * The mail client's own address as Dovecot passes it on (`send_auth_headers = yes`, mail-config.ts):
 * `X-Dovecot-Auth-Remote: 192.0.2.7:51234` or `[2001:db8::7]:51234` (its %{rip} and port).
 * Undefined when missing or not an address.
 */
export function dovecotRemoteAddress(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const value = header.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  const address = bracketed ? bracketed[1]! : isIP(value) ? value : value.replace(/:\d+$/, '');
  return isIP(address) ? address.toLowerCase() : undefined;
}

/**
 * The OAuth 2.0 password grant that Dovecot's second `passdb oauth2` (use_grant_password = yes)
 * sends for PLAIN/LOGIN sign-ins: it accepts app passwords only, never the account password,
 * and only from the mail client. Every refusal is the same invalid_grant (no enumeration), and
 * failures count in the sign-in throttle under their own identifier (`mail:<address>`), so
 * guessing at IMAP cannot lock the console sign-in; a right app password is let in whatever
 * others guessed (app-password-sign-in.ts). Every mail client reaches Atrium through
 * Dovecot's one address, so failures are counted by the client address Dovecot passes on (its
 * `rip`, in X-Dovecot-Auth-Remote), believed only from Dovecot (the client secret): wrong app
 * passwords from one client then hold up that client, not every mail client of the account.
 * Without the header, the request's own address counts, as before. The token in the answer unlocks nothing:
 * Dovecot wants one, and reads the address from `email`.
 */
export const mailAuthRoutes =
  (deps: { db: Db; mailClient: () => Promise<MailClient> }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db } = deps;
    const failures = new AddressFailureBudget();
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 8 * 1024 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );

    app.post(
      '/api/mail/password-grant',
      route(
        'mailPasswordGrant',
        'For Dovecot: checks an app password (OAuth 2.0 password grant, mail client only)',
        {
          body: grantBody,
          response: {
            200: z.object({
              access_token: z.string(),
              token_type: z.literal('Bearer'),
              expires_in: z.number(),
              email: z.string(),
            }),
            // OAuth's own error for a refused grant; Atrium's error body for a malformed request.
            400: z.union([oauthError, apiErrorSchema]),
            401: oauthError,
          },
        },
      ),
      async (request, reply) => {
        const basic = basicCredentials(request.headers.authorization);
        const body = request.body;
        const client = await deps.mailClient();
        if (!isMailClient(client, basic.id ?? body.client_id, basic.secret ?? body.client_secret)) {
          return reply
            .status(401)
            .send({ error: 'invalid_client', error_description: 'client authentication failed' });
        }
        // Only now, with Dovecot's secret checked, is the client address it names believed.
        const ip = dovecotRemoteAddress(request.headers['x-dovecot-auth-remote']) ?? request.ip;
        const owner = await signInWithAppPassword(db, failures, {
          protocol: 'mail',
          email: body.username,
          password: body.password,
          ip,
        });
        if (!owner) {
          return reply
            .status(400)
            .send({ error: 'invalid_grant', error_description: 'invalid username or app password' });
        }
        return {
          access_token: randomBytes(24).toString('base64url'),
          token_type: 'Bearer' as const,
          expires_in: 60,
          email: owner.email,
        };
      },
    );
  };
