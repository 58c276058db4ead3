import type Provider from 'oidc-provider';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { Mailer } from '../../lib/mail.ts';
import { sendBackchannelLogoutsThroughQueue } from '../../oidc/backchannel-logout.ts';
import { ensureConsoleClient } from '../../oidc/console-client.ts';
import { endConsoleSessionsWithSsoSession } from '../../oidc/logout-ends-console.ts';
import { mountProvider } from '../../oidc/mount.ts';
import { openChangeFeed } from '../../db/change-feed.ts';
import { createProvider } from '../../oidc/provider.ts';
import { withReadAhead } from '../../oidc/request-prefetch.ts';
import { authenticatorRoutes } from './factors/authenticator/authenticator.routes.ts';
import { enrolmentRoutes } from './sign-in/enrolment.routes.ts';
import { schedulePurge } from './identity-cleanup.ts';
import { interactionsRoutes } from './sign-in/interactions.routes.ts';
import { passkeySignInRoutes } from './sign-in/second-factor/passkey-sign-in.routes.ts';
import { passkeysRoutes } from './factors/passkeys/passkeys.routes.ts';
import { passwordResetRoutes } from './password-reset/password-reset.routes.ts';
import { profileRoutes } from './sessions/profile.routes.ts';
import { secondFactorRoutes } from './sign-in/second-factor/second-factor.routes.ts';
import { signInAdminRoutes } from './policy/sign-in-admin.routes.ts';
import { adminFactorsRoutes } from './factors/admin-factors.routes.ts';
import { createSsoClient } from './console-client/sso-client.ts';
import { ssoRoutes } from './console-client/sso.routes.ts';
import { trustedBrowsersRoutes } from './factors/trusted-browsers/trusted-browsers.routes.ts';

/**
 * Identity: the OpenID Connect provider at /oidc, the sign-in interaction behind /login,
 * password reset, the console's own SSO session, and the profile's password and sessions.
 */
export async function registerIdentity(
  app: FastifyInstance,
  deps: { db: Db; config: Config; mailer: Mailer; runJobs?: boolean },
): Promise<Provider> {
  const { db, config, mailer } = deps;
  if (config.secureCookies && !config.cookieDomain) {
    // config.ts found no registrable domain (an IP address, a public suffix): host-only cookies.
    app.log.warn(
      { host: config.publicUrl.hostname },
      'PUBLIC_URL has no registrable domain: session cookies are host-only, not shared with sibling hosts',
    );
  }
  // Changes to cached rows (OIDC clients), from this process and every other one on the database.
  const changes = await openChangeFeed(db, {
    onError: (error) =>
      app.log.warn({ err: error }, 'database change feed lost; caches off until it is back'),
  });
  app.addHook('onClose', () => changes.close());
  const provider = await createProvider(db, config, changes);
  // A sign-in step reads its interaction, then finishes it, which reads it again: once is enough.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.url.startsWith('/api/interactions/')) withReadAhead(done);
    else done();
  });
  sendBackchannelLogoutsThroughQueue(provider, db, app.jobs);
  endConsoleSessionsWithSsoSession(provider, db);
  const consoleClient = await ensureConsoleClient(db, config);
  const sso = createSsoClient(app, config, consoleClient);
  await mountProvider(app, provider, config.publicUrl);
  await app.register(interactionsRoutes({ db, config, mailer, provider }));
  await app.register(secondFactorRoutes({ db, config, mailer, provider }));
  await app.register(passkeySignInRoutes({ db, config, mailer, provider }));
  await app.register(ssoRoutes({ db, config, sso }));
  await app.register(passwordResetRoutes({ db, config, mailer, background: app.background }));
  await app.register(profileRoutes({ db, config, mailer }));
  await app.register(authenticatorRoutes({ db, config, mailer }));
  await app.register(enrolmentRoutes({ db, config, mailer, provider }));
  await app.register(signInAdminRoutes({ db, config, mailer }));
  await app.register(adminFactorsRoutes({ db, config, mailer }));
  await app.register(trustedBrowsersRoutes({ db }));
  await app.register(passkeysRoutes({ db, config, mailer }));
  if (deps.runJobs) schedulePurge(app, db);
  // Calendars and contacts accept the provider's access tokens (modules/dav).
  return provider;
}
