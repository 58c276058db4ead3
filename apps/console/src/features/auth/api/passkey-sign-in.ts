import type { PasskeyOptionsResponse } from '@atrium/contracts/passkeys';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

const base = (uid: string) => `/api/interactions/${encodeURIComponent(uid)}/passkey` as const;

/**
 * Signs in with a passkey: the server's options for this sign-in, the browser's answer, the
 * server's check. `autofill` waits on the e-mail field's suggestions (conditional UI) instead of
 * opening the browser's dialog. The WebAuthn library loads only when first used, so /login's
 * first paint does not wait for it. Resolves to where to go next.
 */
export async function signInWithPasskey(
  uid: string,
  autofill = false,
  trustBrowser = false,
): Promise<string> {
  const { startAuthentication } = await import('@simplewebauthn/browser');
  const { options } = await api.post<PasskeyOptionsResponse>(`${base(uid)}/options`);
  const response = await startAuthentication({ optionsJSON: options as never, useBrowserAutofill: autofill });
  const { redirectTo } = await api.post<{ redirectTo: string }>(base(uid), { response, trustBrowser });
  return redirectTo;
}

export function usePasskeySignIn(uid: string) {
  return useMutation({ mutationFn: (autofill: boolean) => signInWithPasskey(uid, autofill) });
}

/** Stops a waiting passkey request (the page moved on to another step). */
export async function cancelPasskeyRequest(): Promise<void> {
  const { WebAuthnAbortService } = await import('@simplewebauthn/browser');
  WebAuthnAbortService.cancelCeremony();
}
