import type { Page } from '@playwright/test';

/**
 * Fills the add-user form (already open at /adduser) for Grace Hopper, grace@`domain`, with a
 * first password, and submits it.
 */
export async function submitGraceWithPassword(page: Page, domain: string, password: string): Promise<void> {
  await page.getByLabel('First name').fill('Grace');
  await page.getByLabel('Last name').fill('Hopper');
  await page.getByLabel('Part before the @').fill('grace');
  await page.getByLabel('Domain').selectOption(domain);
  await page.getByLabel('Set a first password now and give it to the user').check();
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Add user' }).click();
}
