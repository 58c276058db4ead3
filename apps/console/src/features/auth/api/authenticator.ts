import type {
  AuthenticatorEnrolment,
  AuthenticatorStatus,
  ConfirmAuthenticatorBody,
  CurrentPasswordBody,
  RecoveryCodesResponse,
  AuthenticatorConfirmedResponse,
} from '@atrium/contracts/authenticator';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { profileKeys } from './profile.ts';

/** The user's authenticator app and recovery codes on /profile (issue 17). */
const authenticatorKey = () => [...profileKeys.all, 'authenticator'] as const;

export const authenticatorQuery = queryOptions({
  queryKey: authenticatorKey(),
  queryFn: () => api.get<AuthenticatorStatus>('/api/profile/authenticator'),
});

export function useAuthenticator() {
  return useQuery(authenticatorQuery);
}

/**
 * Each change refreshes the profile's factors: the app's status, and the passkeys' too, whose
 * section shows the recovery codes only while no app does (one place, not two).
 */
function useAuthenticatorMutation<TBody, TResult>(mutationFn: (body: TBody) => Promise<TResult>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => client.invalidateQueries({ queryKey: profileKeys.all }),
  });
}

export const useStartEnrolment = () =>
  useMutation({
    mutationFn: () => api.post<AuthenticatorEnrolment>('/api/profile/authenticator'),
  });

export const useConfirmEnrolment = () =>
  useAuthenticatorMutation((body: ConfirmAuthenticatorBody) =>
    api.post<AuthenticatorConfirmedResponse>('/api/profile/authenticator/confirm', body),
  );

export const useRemoveAuthenticator = () =>
  useAuthenticatorMutation((body: CurrentPasswordBody) =>
    api.post<null>('/api/profile/authenticator/remove', body),
  );

export const useRegenerateRecoveryCodes = () =>
  useAuthenticatorMutation((body: CurrentPasswordBody) =>
    api.post<RecoveryCodesResponse>('/api/profile/recovery-codes', body),
  );
