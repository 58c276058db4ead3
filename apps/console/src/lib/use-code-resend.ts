import { useState } from 'react';
import { ApiError } from './api-client.ts';

/**
 * What "Send a new code" does: clears the last failure, sends, and says whether the new code went
 * out (`resent`); a failure goes to `onFailure`, as an ApiError even when the request never left.
 */
export function useCodeResend(send: () => Promise<unknown>, onFailure: (error: ApiError | null) => void) {
  const [resent, setResent] = useState(false);
  async function resend() {
    onFailure(null);
    setResent(false);
    try {
      await send();
      setResent(true);
    } catch (error) {
      onFailure(
        error instanceof ApiError ? error : new ApiError(0, { code: 'error', message: String(error) }),
      );
    }
  }
  return { resent, resend };
}
