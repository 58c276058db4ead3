import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { hashPassword } from '../../server/src/lib/passwords.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';
import { signInThroughLogin } from './support/sign-in.ts';

const PASSWORD = 'correct horse battery staple';

const readBody = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
};

/**
 * An app we did not write, on loopback: openid-client as its relying party, asking for
 * `response_mode=form_post` (the provider's page posts the code to /callback) and logging out
 * through the provider's end-session endpoint back to its own /signed-out page.
 */
class FormPostApp {
  private server: Server | undefined;
  private config: oidc.Configuration | undefined;
  private pending: { verifier: string; state: string } | undefined;
  private idToken = '';

  get origin() {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async listen(): Promise<void> {
    this.server = createServer((request, response) => {
      this.handle(request).then(
        ({ status, headers, body }) => {
          response.writeHead(status, headers);
          response.end(body);
        },
        (error: unknown) => {
          response.writeHead(500, { 'content-type': 'text/plain' });
          response.end(`The app failed: ${String(error)}`);
        },
      );
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  async register(issuer: string, clientId: string, clientSecret: string): Promise<void> {
    this.config = await oidc.discovery(new URL(issuer), clientId, clientSecret, undefined, {
      execute: [oidc.allowInsecureRequests],
    });
  }

  private async handle(request: IncomingMessage) {
    const url = new URL(request.url ?? '/', this.origin);
    const html = (body: string) => ({ status: 200, headers: { 'content-type': 'text/html' }, body });
    const redirect = (location: URL) => ({ status: 302, headers: { location: location.href }, body: '' });
    if (url.pathname === '/login') {
      const verifier = oidc.randomPKCECodeVerifier();
      this.pending = { verifier, state: oidc.randomState() };
      return redirect(
        oidc.buildAuthorizationUrl(this.config!, {
          redirect_uri: `${this.origin}/callback`,
          response_mode: 'form_post',
          scope: 'openid email profile',
          state: this.pending.state,
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        }),
      );
    }
    if (url.pathname === '/callback' && request.method === 'POST') {
      const posted = new Request(url, {
        method: 'POST',
        headers: { 'content-type': String(request.headers['content-type']) },
        body: await readBody(request),
      });
      const tokens = await oidc.authorizationCodeGrant(this.config!, posted, {
        pkceCodeVerifier: this.pending!.verifier,
        expectedState: this.pending!.state,
      });
      this.idToken = tokens.id_token!;
      return html(
        `<h1>Welcome to the loopback app</h1><p id="email">${tokens.claims()!.email as string}</p>`,
      );
    }
    if (url.pathname === '/logout') {
      return redirect(
        oidc.buildEndSessionUrl(this.config!, {
          id_token_hint: this.idToken,
          post_logout_redirect_uri: `${this.origin}/signed-out`,
        }),
      );
    }
    if (url.pathname === '/signed-out') return html('<h1>Signed out of the loopback app</h1>');
    return html('<h1>Loopback app</h1><a href="/login">Sign in with Atrium</a>');
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

test.describe('the way back to an app we did not write', () => {
  const app = new FormPostApp();
  test.afterAll(() => app.stop());

  test('form_post sign-in with password and code lands on the app; logging out there returns to its post-logout page', async ({
    atrium,
    browser,
    page,
    signInAs,
  }) => {
    await app.listen();
    const org = await createOrganizationWithAdmin(atrium.db);
    const user = await createUser(atrium.db, org.id, { passwordHash: await hashPassword(PASSWORD) });

    // The admin installs the app with its post-logout page registered.
    await signInAs(org.admin);
    await page.goto('/apps/install/custom');
    await expect(page.getByRole('heading', { level: 1, name: 'Install Custom OIDC App' })).toBeVisible();
    await page.getByLabel('Launch URL').fill(`${app.origin}/`);
    await page.getByLabel('Redirect URI 1', { exact: true }).fill(`${app.origin}/callback`);
    // Offered from the launch URL; the admin points it at the app's signed-out page.
    const logoutField = page.getByLabel('Post-logout redirect URI 1', { exact: true });
    await expect(logoutField).toHaveValue(`${app.origin}/`);
    await logoutField.fill(`${app.origin}/signed-out`);
    await page.getByRole('button', { name: 'Install' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Custom OIDC App is installed' })).toBeVisible();
    await expect(page.locator('pre')).toContainText(`OIDC_POST_LOGOUT_REDIRECT_URI=${app.origin}/signed-out`);
    await app.register(
      `${atrium.url}/oidc`,
      await page.getByLabel('Client ID', { exact: true }).inputValue(),
      await page.getByLabel('Client secret', { exact: true }).inputValue(),
    );

    // A user opens the app in their own browser and signs in with password and code.
    const context = await browser.newContext({ baseURL: atrium.url });
    const userPage = await context.newPage();
    await signInThroughLogin(
      userPage,
      atrium,
      { email: user.email, password: PASSWORD },
      { startAt: `${app.origin}/login` },
    );
    await expect(userPage.getByRole('heading', { name: 'Welcome to the loopback app' })).toBeVisible();
    await expect(userPage).toHaveURL(`${app.origin}/callback`);
    await expect(userPage.locator('#email')).toHaveText(user.email);

    // Logging out in the app ends the Atrium session and comes back to the app's page.
    await userPage.goto(`${app.origin}/logout`);
    await expect(userPage.getByRole('heading', { name: 'Signed out of the loopback app' })).toBeVisible();
    await expect(userPage).toHaveURL(new RegExp(`^${app.origin}/signed-out`));
    // Signing in to the app again asks for the password: the SSO session is gone.
    await userPage.goto(`${app.origin}/login`);
    await expect(userPage).toHaveURL(/\/login\?uid=/);
    await context.close();
  });
});
