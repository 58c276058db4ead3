import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from '@playwright/test';
import { issueSignInTicket } from '../../server/src/modules/auth/sign-in/sign-in-tickets.ts';
import { createGroup } from '../../server/test/apps/helpers.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';

/**
 * A tiny relying party on loopback, as a real app would be: its start page sends the browser to
 * Atrium's authorize endpoint (code + PKCE), and its redirect URI shows the code it received.
 */
class LoopbackApp {
  clientId = '';
  private server: Server | undefined;
  private issuer = '';

  get origin() {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }
  get redirectUri() {
    return `${this.origin}/callback`;
  }

  async start(issuer: string): Promise<void> {
    this.issuer = issuer;
    this.server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', this.origin);
      if (url.pathname === '/callback') {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end(`<h1>Loopback app</h1><p id="code">${url.searchParams.get('code') ?? 'no code'}</p>`);
        return;
      }
      const verifier = randomBytes(32).toString('base64url');
      const authorize = new URL(`${this.issuer}/auth`);
      authorize.search = new URLSearchParams({
        client_id: this.clientId,
        redirect_uri: this.redirectUri,
        response_type: 'code',
        scope: 'openid email',
        state: randomBytes(8).toString('hex'),
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString();
      response.writeHead(302, { location: authorize.href });
      response.end();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

/** A real SSO session (provider + console) through a single-use sign-in ticket, then the apps page. */
async function signInThroughSso(browser: Browser, atriumUrl: string, ticket: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: atriumUrl });
  // The cookie that comes with a ticket (sign-up, invitation answers) binds it to this browser.
  await context.addCookies([{ name: 'atrium_ticket', value: ticket, url: atriumUrl }]);
  const page = await context.newPage();
  await page.goto(
    `/api/sso/start?ticket=${encodeURIComponent(ticket)}&returnTo=${encodeURIComponent('/application')}`,
  );
  await expect(page).toHaveURL(/\/application$/);
  return page;
}

test.describe('apps and single sign-on', () => {
  const rp = new LoopbackApp();
  test.afterAll(() => rp.stop());

  test('an admin installs an app for one group; a member opens it signed in, a non-member never sees it', async ({
    atrium,
    browser,
    page,
    signInAs,
  }) => {
    await rp.start(`${atrium.url}/oidc`);
    const org = await createOrganizationWithAdmin(atrium.db);
    const member = await createUser(atrium.db, org.id, { firstName: 'Mia', lastName: 'Member' });
    const outsider = await createUser(atrium.db, org.id, { firstName: 'Olaf', lastName: 'Outsider' });
    await createGroup(atrium.db, org.id, 'Staff', [member.id]);
    await createGroup(atrium.db, org.id, 'Contractors', [outsider.id]);

    // The admin goes to Apps from the sidebar, then to the catalog, and installs the wiki for Staff only.
    await signInAs(org.admin);
    await page.goto('/dashboard');
    const adminSidebar = page.getByRole('complementary', { name: 'Main navigation' });
    await adminSidebar.getByRole('link', { name: 'Apps', exact: true }).click();
    await expect(page).toHaveURL(/\/apps$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Apps' })).toBeVisible();
    await expect(page).toHaveTitle('Apps | Atrium');
    await page.getByRole('link', { name: 'Add an app' }).first().click();
    await expect(page).toHaveURL(/\/apps\/catalog$/);
    await expect(adminSidebar.getByRole('link', { name: 'Apps', exact: true })).toHaveClass(/active/);
    const catalog = page.getByRole('list', { name: 'Available apps' });
    await expect(catalog.getByText('Installed')).toHaveCount(0);
    await catalog.getByRole('link', { name: 'Install Wiki' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Install Wiki' })).toBeVisible();
    await expect(page).toHaveTitle('Install Wiki | Atrium');
    await expect(page.getByRole('navigation', { name: 'Breadcrumb' })).toContainText('AppsInstall Wiki');

    // Before installing: the wiki's setup steps, the provider's settings and where sign-ins go.
    const preview = page.getByRole('region', { name: 'Setting up Wiki' });
    await expect(preview.getByRole('listitem').first()).toHaveText(
      "Add the lines below to BookStack's .env file and restart it.",
    );
    await expect(preview).toContainText('Wiki receives sign-ins at https://<your-host>/oidc/callback');
    await expect(preview.getByLabel('Issuer', { exact: true })).toHaveValue(`${atrium.url}/oidc`);
    await expect(preview.locator('pre')).toContainText('OIDC_CLIENT_ID=<client ID: shown after install>');
    await expect(page.getByLabel('Redirect URI 1', { exact: true })).toHaveAttribute(
      'placeholder',
      'https://<your-host>/oidc/callback',
    );
    await page.getByLabel('Launch URL').fill(`http://wiki.example.com/`);
    // Refused with the reason, beside the field.
    await page.getByLabel('Redirect URI 1', { exact: true }).fill('https://*.example.com/callback');
    await page.getByLabel('Back-channel logout URI', { exact: true }).fill('http://wiki.example.com/logout');
    await page.getByRole('button', { name: 'Install' }).click();
    await expect(page.getByText('Wildcards are not allowed; enter the exact redirect URI')).toBeVisible();
    // Beside the launch URL, the post-logout URI offered from it, and the back-channel logout URI.
    await expect(
      page.getByText('Use https:// (http:// is allowed only for localhost and 127.0.0.1)'),
    ).toHaveCount(3);
    await expect(page.getByLabel('Post-logout redirect URI 1', { exact: true })).toHaveValue(
      'http://wiki.example.com/',
    );

    await page.getByLabel('Launch URL').fill(`${rp.origin}/`);
    await page.getByLabel('Redirect URI 1', { exact: true }).fill(rp.redirectUri);
    await page.getByLabel('Back-channel logout URI', { exact: true }).fill(`${rp.origin}/backchannel-logout`);
    await page.getByLabel('Only members of these groups').check();
    await page.getByLabel('Staff', { exact: true }).check();
    await page.getByRole('button', { name: 'Install' }).click();

    await expect(page.getByRole('heading', { level: 1, name: 'Wiki is installed' })).toBeVisible();
    await expect(page.getByText('Copy the client secret now')).toBeVisible();
    const secret = await page.getByLabel('Client secret', { exact: true }).inputValue();
    expect(secret.length).toBeGreaterThan(40);
    rp.clientId = await page.getByLabel('Client ID', { exact: true }).inputValue();
    await expect(page.getByLabel('Issuer', { exact: true })).toHaveValue(`${atrium.url}/oidc`);
    await expect(page.locator('pre')).toContainText(`OIDC_CLIENT_SECRET=${secret}`);
    await expect(page.getByLabel('Back-channel logout URI', { exact: true })).toHaveValue(
      `${rp.origin}/backchannel-logout`,
    );

    // The app's page never shows the secret again.
    await page.getByRole('link', { name: 'Done' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Wiki' })).toBeVisible();
    await expect(page.locator('pre')).toContainText('OIDC_CLIENT_SECRET=<client secret: shown once');
    await expect(page.getByText(secret)).toHaveCount(0);
    const wikiPage = page.url();

    // The catalog now marks the wiki installed, and offers to manage it instead of installing it.
    await page.goto('/apps/catalog');
    const wikiCard = catalog.getByRole('listitem').filter({ hasText: 'Wiki' });
    await expect(wikiCard.getByText('Installed', { exact: true })).toBeVisible();
    await expect(wikiCard.getByRole('link', { name: 'Install Wiki' })).toHaveCount(0);
    await expect(wikiCard.getByRole('link', { name: 'Install another Wiki' })).toBeVisible();
    await wikiCard.getByRole('link', { name: 'Manage Wiki' }).click();
    await expect(page).toHaveURL(wikiPage);
    await expect(page).toHaveTitle('Wiki | Atrium');

    // A member of Staff sees the tile and opens the app in a new tab, arriving signed in.
    const memberPage = await signInThroughSso(
      browser,
      atrium.url,
      await issueSignInTicket(atrium.db, member.id),
    );
    const tile = memberPage.getByRole('list', { name: 'Your apps' }).getByRole('link', { name: /Wiki/ });
    await expect(tile).toHaveAttribute('target', '_blank');
    await expect(tile).toHaveAttribute('rel', 'noopener');
    const sidebar = memberPage.getByTestId('apps-sidebar');
    await expect(sidebar.getByRole('link', { name: 'Wiki' })).toHaveAttribute('href', `${rp.origin}/`);
    const [appTab] = await Promise.all([memberPage.waitForEvent('popup'), tile.click()]);
    await appTab.waitForURL(/\/callback\?/);
    const arrived = new URL(appTab.url());
    expect(arrived.origin + arrived.pathname).toBe(rp.redirectUri);
    expect(arrived.searchParams.get('code')).toBeTruthy();
    await expect(appTab.locator('#code')).toHaveText(arrived.searchParams.get('code')!);

    // A non-member sees no tile, and the app itself sends them to the access page, without a code.
    const outsiderPage = await signInThroughSso(
      browser,
      atrium.url,
      await issueSignInTicket(atrium.db, outsider.id),
    );
    await expect(outsiderPage.getByRole('heading', { name: 'No apps yet' })).toBeVisible();
    await expect(outsiderPage.getByRole('link', { name: /Wiki/ })).toHaveCount(0);
    await outsiderPage.goto(`${rp.origin}/`);
    await expect(outsiderPage).toHaveURL(/\/access-denied\?app=Wiki$/);
    await expect(
      outsiderPage.getByText("You don't have access to Wiki. Ask your administrator."),
    ).toBeVisible();
  });
});
