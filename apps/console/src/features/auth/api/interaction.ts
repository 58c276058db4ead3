import type {
  InteractionState,
  ResendResponse,
  SignInCodeBody,
  SignInPasswordBody,
} from '@atrium/contracts/auth';
import type {
  AuthenticatorEnrolment,
  ConfirmAuthenticatorBody,
  SecondFactor,
} from '@atrium/contracts/authenticator';
import type { EnrolmentDoneResponse } from '@atrium/contracts/sign-in-policy';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { LoaderFunctionArgs } from 'react-router';
import { api } from '../../../lib/api-client.ts';
import { queryClient } from '../../../lib/query-client.ts';

/** The provider's login interaction behind /login?uid=… (see the server's interactions routes). */
export const interactionKeys = {
  all: ['interaction'] as const,
  state: (uid: string) => [...interactionKeys.all, uid] as const,
};

const base = (uid: string) => `/api/interactions/${encodeURIComponent(uid)}` as const;

export const interactionStateQuery = (uid: string) =>
  queryOptions({
    queryKey: interactionKeys.state(uid),
    queryFn: () => api.get<InteractionState>(`${base(uid)}/state`),
    staleTime: Infinity,
    retry: false,
    // While the code's e-mail waits for the mail server, look again now and then so the page
    // can say once it has gone out.
    refetchInterval: (query) => {
      const state = query.state.data;
      return state?.stage === 'code' && !state.codeSent ? 5000 : false;
    },
  });

/**
 * /login's route loader: asks for the sign-in's state beside the page's code instead of after
 * it, so the form is there at the first paint (no spinner that the form then pushes aside).
 * Errors are the page's to show, so they are not thrown here.
 */
export async function prefetchInteractionState({ request }: LoaderFunctionArgs): Promise<null> {
  const uid = new URL(request.url).searchParams.get('uid');
  if (uid) await queryClient.prefetchQuery(interactionStateQuery(uid));
  return null;
}

export function useInteractionState(uid: string) {
  return useQuery(interactionStateQuery(uid));
}

export function useSubmitPassword(uid: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: SignInPasswordBody) => api.post<InteractionState>(`${base(uid)}/password`, body),
    onSuccess: (state) => client.setQueryData(interactionKeys.state(uid), state),
  });
}

export function useSubmitCode(uid: string) {
  return useMutation({
    mutationFn: (body: SignInCodeBody) => api.post<{ redirectTo: string }>(`${base(uid)}/code`, body),
  });
}

export function useResendCode(uid: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<ResendResponse>(`${base(uid)}/resend`),
    onSuccess: ({ resendAvailableAt, codeSent }) =>
      client.setQueryData<InteractionState>(interactionKeys.state(uid), (state) =>
        state?.stage === 'code' ? { ...state, resendAvailableAt, codeSent } : state,
      ),
  });
}

/** The authenticator app's code (`totp`) or a recovery code (`recovery`). */
export function useSubmitSecondFactor(uid: string, step: 'totp' | 'recovery') {
  return useMutation({
    mutationFn: (body: { code: string; trustBrowser?: boolean }) =>
      api.post<{ redirectTo: string }>(`${base(uid)}/${step}`, body),
  });
}

/** Forced enrolment (the organisation requires an authenticator app): its secret and QR code. */
export function useStartSignInEnrolment(uid: string) {
  return useMutation({
    mutationFn: () => api.post<AuthenticatorEnrolment>(`${base(uid)}/enrolment`),
  });
}

export function useConfirmSignInEnrolment(uid: string) {
  return useMutation({
    mutationFn: (body: ConfirmAuthenticatorBody) =>
      api.post<EnrolmentDoneResponse>(`${base(uid)}/enrolment/confirm`, body),
  });
}

/** "Use another way": the page moves to the chosen factor's step. */
export function useChooseFactor(uid: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (factor: SecondFactor) => api.post<InteractionState>(`${base(uid)}/factor`, { factor }),
    onSuccess: (state) => client.setQueryData(interactionKeys.state(uid), state),
  });
}
