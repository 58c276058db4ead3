import { describe, expect, it, vi } from 'vitest';
import { ApiError } from './api-client.ts';
import { applyServerErrors } from './server-form-errors.ts';

describe('applyServerErrors', () => {
  it('puts field messages beside their fields and focuses the first', () => {
    const setError = vi.fn();
    const error = new ApiError(400, {
      code: 'validation_failed',
      message: 'siteName: taken',
      fields: { siteName: 'This site name is already taken. Choose another one', other: 'ignored' },
    });
    expect(applyServerErrors(error, setError, ['siteName', 'organizationName'])).toBeNull();
    expect(setError).toHaveBeenCalledTimes(1);
    expect(setError).toHaveBeenCalledWith(
      'siteName',
      { type: 'server', message: 'This site name is already taken. Choose another one' },
      { shouldFocus: true },
    );
  });

  it('returns errors that name no field of the form, for an alert', () => {
    const setError = vi.fn();
    const error = new ApiError(429, { code: 'rate_limited', message: 'Too many requests' });
    expect(applyServerErrors(error, setError, ['email'])).toBe(error);
    expect(applyServerErrors(new Error('boom'), setError, ['email'])?.message).toBe('Error: boom');
    expect(setError).not.toHaveBeenCalled();
  });
});
