import type { TrustedBrowsersResponse } from '@atrium/contracts/sign-in-policy';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { profileKeys } from './profile.ts';

/** Browsers whose sign-ins skip the second factor (issue 17 item 6), on /profile. */
const trustedBrowsersKey = () => [...profileKeys.all, 'trusted-browsers'] as const;

export const trustedBrowsersQuery = queryOptions({
  queryKey: trustedBrowsersKey(),
  queryFn: async () => (await api.get<TrustedBrowsersResponse>('/api/profile/trusted-browsers')).browsers,
});

export function useTrustedBrowsers() {
  return useQuery(trustedBrowsersQuery);
}

/** Removes one browser by id, or every one without. */
export function useRemoveTrustedBrowsers() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id?: string) =>
      api.delete<null>(`/api/profile/trusted-browsers${id ? `/${encodeURIComponent(id)}` : ''}`),
    onSettled: () => client.invalidateQueries({ queryKey: trustedBrowsersKey() }),
  });
}
