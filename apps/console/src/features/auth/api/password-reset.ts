import type { PasswordResetCompleteBody, PasswordResetLinkBody } from '@atrium/contracts/auth';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

export function useStartPasswordReset() {
  return useMutation({
    mutationFn: (body: { email: string }) =>
      api.post<{ message: string; resendAvailableAt: string }>('/api/password-reset/start', body),
  });
}

export function useCompletePasswordReset() {
  return useMutation({
    mutationFn: (body: PasswordResetCompleteBody) =>
      api.post<{ message: string }>('/api/password-reset/complete', body),
  });
}

/** The link of a reset e-mail: sets the password from any browser, once. */
export function useCompletePasswordResetByLink() {
  return useMutation({
    mutationFn: (body: PasswordResetLinkBody) =>
      api.post<{ message: string }>('/api/password-reset/link', body),
  });
}
