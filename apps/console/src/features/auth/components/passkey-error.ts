import { ApiError } from '../../../lib/api-client.ts';

/**
 * What to tell the person when a passkey did not work: the server's own message, or the
 * browser's refusal (dialog closed, timed out, no passkey for this site) in plain words.
 */
export function passkeyError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  const name = error instanceof Error ? error.name : '';
  // Another request took this one's place (the page moved on): nothing to say.
  if (name === 'AbortError') return null;
  const message =
    name === 'NotAllowedError'
      ? 'The passkey was not used: the request was closed or timed out.'
      : 'This browser could not use a passkey here.';
  return new ApiError(0, { code: 'passkey_cancelled', message });
}
