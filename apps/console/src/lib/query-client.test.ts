import { describe, expect, it } from 'vitest';
import { ApiError } from './api-client.ts';
import { shouldRetry } from './query-client.ts';

const error = (status: number) => new ApiError(status, { code: 'x', message: 'x' });

describe('shouldRetry', () => {
  it('retries a glitch once: no answer, 502, 503, 504', () => {
    for (const status of [0, 502, 503, 504]) {
      expect(shouldRetry(0, error(status))).toBe(true);
      expect(shouldRetry(1, error(status))).toBe(false);
    }
  });
  it('never retries an answer: a 4xx, or a 500 the server has logged', () => {
    for (const status of [400, 401, 404, 409, 500]) expect(shouldRetry(0, error(status))).toBe(false);
    expect(shouldRetry(0, new Error('bug'))).toBe(false);
  });
});
