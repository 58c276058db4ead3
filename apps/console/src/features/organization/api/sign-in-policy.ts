import type { SignInPolicy } from '@atrium/contracts/sign-in-policy';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { organizationKeys } from './keys.ts';

/** The organisation's sign-in policy (issue 17 item 5); admins only. */
const signInPolicyKey = () => [...organizationKeys.all, 'sign-in-policy'] as const;

export const signInPolicyQuery = () =>
  queryOptions({
    queryKey: signInPolicyKey(),
    queryFn: ({ signal }) => api.get<SignInPolicy>('/api/organization/sign-in-policy', { signal }),
  });

export function useSignInPolicy() {
  return useQuery(signInPolicyQuery());
}

export function useUpdateSignInPolicy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SignInPolicy) => api.put<SignInPolicy>('/api/organization/sign-in-policy', body),
    onSuccess: (policy) => queryClient.setQueryData(signInPolicyKey(), policy),
  });
}
