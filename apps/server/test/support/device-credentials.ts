import type { AppWithSecretResponse } from '@atrium/contracts/apps';
import { expect } from 'vitest';
import { ensureMailClient, type MailClient } from '../../src/modules/mail/mail-client.ts';
import { createProvider } from '../../src/oidc/provider.ts';
import { installBody } from '../apps/helpers.ts';
import { signInAs, type TestUser } from './fixtures.ts';
import type { TestApp } from './test-app.ts';

// What devices and the daemons in front of Atrium send when someone signs in with an app password
// or an access token: Caddy's forward_auth for /dav, Dovecot's password grant for IMAP and SMTP.

export const basicAuth = (email: string, password: string) =>
  `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;

/** Caddy's forward_auth request for `/dav/<path>`, from a client at `ip` (with TRUST_PROXY 127.0.0.1). */
export const davForwardAuth = (
  server: TestApp,
  request: { authorization?: string; ip?: string; path: string },
) =>
  server.app.inject({
    method: 'GET',
    url: '/api/dav/auth',
    headers: {
      ...(request.authorization ? { authorization: request.authorization } : {}),
      ...(request.ip ? { 'x-forwarded-for': request.ip } : {}),
      'x-forwarded-uri': request.path,
    },
    remoteAddress: '127.0.0.1',
  });

/** Dovecot's client, registered once per server. */
const mailClients = new WeakMap<TestApp, Promise<MailClient>>();

/** Dovecot's password grant, as its `passdb oauth2` sends it; `ip`: the mail client it names. */
export async function mailPasswordGrant(
  server: TestApp,
  request: { email: string; password: string; ip?: string },
) {
  if (!mailClients.has(server)) mailClients.set(server, ensureMailClient(server.db, server.config));
  const client = await mailClients.get(server)!;
  return server.app.inject({
    method: 'POST',
    url: '/api/mail/password-grant',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(request.ip ? { 'x-dovecot-auth-remote': `${request.ip}:50000` } : {}),
    },
    payload: new URLSearchParams({
      grant_type: 'password',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      username: request.email,
      password: request.password,
    }).toString(),
    remoteAddress: '127.0.0.1',
  });
}

/** Installs an app from the catalog in `admin`'s organisation, through the API; its OIDC client id. */
export async function installCatalogApp(server: TestApp, admin: TestUser, templateKey: string) {
  const session = await signInAs(server.db, admin);
  const installed = await server.app.inject({
    method: 'POST',
    url: '/api/apps',
    headers: session.headers,
    payload: installBody({
      templateKey,
      title: `${templateKey} app`,
      launchUrl: 'https://calendar.example.test',
      redirectUris: ['https://calendar.example.test/oidc/callback'],
    }),
  });
  expect(installed.statusCode, installed.body).toBe(201);
  return installed.json<AppWithSecretResponse>().app.clientId;
}

/** An access token of `user`'s for `clientId` with `scope`, saved where the server's provider reads it. */
export async function accessTokenFor(server: TestApp, user: TestUser, clientId: string, scope: string) {
  const provider = await createProvider(server.db, server.config);
  const grant = new provider.Grant({ accountId: user.id, clientId });
  grant.addOIDCScope(scope);
  const token = new provider.AccessToken({
    accountId: user.id,
    client: (await provider.Client.find(clientId))!,
    grantId: await grant.save(),
    scope,
    gty: 'authorization_code',
  });
  return token.save();
}
