import type { PasswordResetCompleteBody } from '@atrium/contracts/auth';
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
