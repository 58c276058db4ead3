import * as client from 'openid-client';
import { hashPassword } from '../../../src/lib/passwords.ts';
import { createOrganizationWithAdmin, type TestOrganization } from '../../support/fixtures.ts';
import { Mailbox } from '../../support/mailbox.ts';
import { createTestApp, type TestApp } from '../../support/test-app.ts';
import { registerTestClient } from './clients.ts';

export const RP_PASSWORD = 'correct horse battery staple';

/** A listening Atrium with a mailbox, an organisation whose admin has `RP_PASSWORD`, and an app. */
export interface RelyingPartyWorld {
  mailbox: Mailbox;
  server: TestApp;
  origin: string;
  org: TestOrganization;
  /** The argon2id hash of `RP_PASSWORD`, for more users. */
  passwordHash: string;
  /** openid-client's view of the provider, as the registered app (client_secret_basic). */
  rp: client.Configuration;
  registered: { clientId: string; clientSecret: string };
  close(): Promise<void>;
}

/**
 * The set-up of the identity tests that play an app with openid-client: started in `beforeAll`,
 * closed in `afterAll`.
 */
export async function startRelyingParty(options: {
  redirectUri: string;
  postLogoutRedirectUri?: string;
}): Promise<RelyingPartyWorld> {
  const mailbox = await Mailbox.start();
  const server = await createTestApp({ env: { SMTP_URL: mailbox.url }, listen: true }).catch(
    async (error: unknown) => {
      await mailbox.close();
      throw error;
    },
  );
  const origin = server.config.publicUrl.origin;
  const passwordHash = await hashPassword(RP_PASSWORD);
  const org = await createOrganizationWithAdmin(server.db, { passwordHash });
  const registered = await registerTestClient(server.db, server.config, {
    organizationId: org.id,
    redirectUri: options.redirectUri,
    ...(options.postLogoutRedirectUri ? { postLogoutRedirectUri: options.postLogoutRedirectUri } : {}),
  });
  const rp = await discoverAs(origin, registered);
  return {
    mailbox,
    server,
    origin,
    org,
    passwordHash,
    rp,
    registered,
    async close() {
      await server.close();
      await mailbox.close();
    },
  };
}

/** openid-client's view of the provider at `origin`, as a registered app (client_secret_basic, http). */
export function discoverAs(
  origin: string,
  registered: { clientId: string; clientSecret: string },
): Promise<client.Configuration> {
  return client.discovery(
    new URL(`${origin}/oidc`),
    registered.clientId,
    registered.clientSecret,
    client.ClientSecretBasic(registered.clientSecret),
    { execute: [client.allowInsecureRequests] },
  );
}
