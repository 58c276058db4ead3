import type { SignupStage, SignupState } from '@atrium/contracts/signup';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, type ApiPath } from '../../../lib/api-client.ts';
import { signupKeys } from './keys.ts';

/** The visitor's sign-up as the server holds it: a reload or another tab resumes here. */
export const getSignupState = (signal?: AbortSignal) => api.get<SignupState>('/api/signup', { signal });

export const signupStateQuery = () =>
  queryOptions({
    queryKey: signupKeys.state(),
    queryFn: ({ signal }) => getSignupState(signal),
    staleTime: 0,
  });

export function useSignupState() {
  return useQuery(signupStateQuery());
}

/** Every stage answers with the new state; the page follows it. */
function useStageMutation<TBody>(path: ApiPath) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TBody) => api.post<SignupState>(path, body),
    onSuccess: (state) => queryClient.setQueryData(signupKeys.state(), state),
    // The flow expired or moved on in another tab: show the stage the server holds now.
    onError: (error) => {
      if (error instanceof ApiError && error.status === 409) {
        void queryClient.invalidateQueries({ queryKey: signupKeys.state() });
      }
    },
  });
}

export const useSubmitSite = () =>
  useStageMutation<{ organizationName: string; siteName: string }>('/api/signup/site');
export const useSubmitEmail = () => useStageMutation<{ email: string }>('/api/signup/email');
export const useVerifyCode = () => useStageMutation<{ code: string }>('/api/signup/verify');
export const useResendCode = () => useStageMutation<Record<string, never>>('/api/signup/code/resend');
/** "stage update": back to an earlier stage. */
export const useChangeStage = () => useStageMutation<{ stage: SignupStage }>('/api/signup/stage');
