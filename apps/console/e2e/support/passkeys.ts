import type { Page } from '@playwright/test';
import { runAtrium, test } from './fixtures.ts';

/**
 * The e2e Atrium for passkeys: the same as every spec's, but reached as `localhost`, because
 * WebAuthn needs a domain name as relying party id (PUBLIC_URL's host), never an IP address.
 */
export const passkeyTest = test.extend({
  atrium: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => runAtrium(use, { publicHost: 'localhost' }),
    { scope: 'worker' },
  ],
});

/**
 * Chromium's virtual authenticator (DevTools WebAuthn domain): a platform authenticator with
 * discoverable credentials and user verification that always succeeds, as a phone or laptop
 * with a fingerprint would. Returns how to list the passkeys it holds.
 */
export async function addVirtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
  };
}

/**
 * Makes the page's browser one without passkey autofill (conditional UI). Chromium's virtual
 * authenticator answers the e-mail field's waiting request at once, as if the person had picked
 * the suggestion, so a test of the button or of the password must turn the suggestion off.
 */
export async function withoutPasskeyAutofill(page: Page): Promise<void> {
  await page.addInitScript(() => {
    PublicKeyCredential.isConditionalMediationAvailable = async () => false;
  });
}
