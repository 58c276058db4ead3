import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './api-client.ts';

/** Answers that may be a passing glitch: no answer at all, or a proxy's "try later". */
const TRANSIENT = new Set([0, 502, 503, 504]);

/**
 * Retry once, and only a glitch: a 4xx is an answer, and a 500 says the server failed and logged
 * it with a request id, which waiting would not change. The page says so at once, with Try again.
 */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (!(error instanceof ApiError) || !TRANSIENT.has(error.status)) return false;
  return failureCount < 1;
}

/** A glitch is retried after half a second, so a failing API shows its error within a second. */
export const RETRY_DELAY_MS = 500;

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        retry: shouldRetry,
        retryDelay: RETRY_DELAY_MS,
        refetchOnWindowFocus: false,
      },
      mutations: { retry: false },
    },
  });
}

export const queryClient = createQueryClient();
