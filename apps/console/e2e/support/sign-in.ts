import { expect, type Page } from '@playwright/test';
import type { Atrium } from './fixtures.ts';

/**
 * Signs a browser in the way a person does: /login with e-mail and password, then the 6-digit
 * code read from the loopback SMTP mailbox. Starts at `startAt` (a console page; signed out, it
 * sends the browser to sign in and back) or at /login, and waits until the console shows.
 */
export async function signInThroughLogin(
  page: Page,
  atrium: Pick<Atrium, 'mailbox'>,
  credentials: { email: string; password: string },
  options: { startAt?: string } = {},
): Promise<void> {
  const after = atrium.mailbox.count;
  await enterPassword(page, credentials, options);
  await expect(page.getByLabel('Sign-in code')).toBeVisible();
  const code = await atrium.mailbox.waitForCode(credentials.email, { after });
  await page.getByLabel('Sign-in code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

/**
 * /login (or `startAt`, which sends a signed-out browser there) up to the step after the password:
 * e-mail and password filled in and Continue pressed.
 */
export async function enterPassword(
  page: Page,
  credentials: { email: string; password: string },
  options: { startAt?: string } = {},
): Promise<void> {
  await page.goto(options.startAt ?? '/login');
  await expect(page).toHaveURL(/\/login\?uid=/);
  await page.getByLabel('E-mail address').fill(credentials.email);
  await page.getByLabel('Password', { exact: true }).fill(credentials.password);
  await page.getByRole('button', { name: 'Continue' }).click();
}
