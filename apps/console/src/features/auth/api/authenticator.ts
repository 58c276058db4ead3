import type {
  AuthenticatorEnrolment,
  AuthenticatorStatus,
  ConfirmAuthenticatorBody,
  CurrentPasswordBody,
  RecoveryCodesResponse,
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

/** Each change refreshes the status (app on or off, codes left). */
function useAuthenticatorMutation<TBody, TResult>(mutationFn: (body: TBody) => Promise<TResult>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => client.invalidateQueries({ queryKey: authenticatorKey() }),
  });
}

export const useStartEnrolment = () =>
  useMutation({
    mutationFn: () => api.post<AuthenticatorEnrolment>('/api/profile/authenticator'),
  });

export const useConfirmEnrolment = () =>
  useAuthenticatorMutation((body: ConfirmAuthenticatorBody) =>
    api.post<RecoveryCodesResponse>('/api/profile/authenticator/confirm', body),
  );

export const useRemoveAuthenticator = () =>
  useAuthenticatorMutation((body: CurrentPasswordBody) =>
    api.post<null>('/api/profile/authenticator/remove', body),
  );

export const useRegenerateRecoveryCodes = () =>
  useAuthenticatorMutation((body: CurrentPasswordBody) =>
    api.post<RecoveryCodesResponse>('/api/profile/recovery-codes', body),
  );
