import type { OutOfOfficeBody, OutOfOfficeView } from '@atrium/contracts/out-of-office';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

/** Your own out-of-office reply (/profile). */
const key = ['out-of-office'] as const;
const url = '/api/profile/out-of-office';

export const outOfOfficeQuery = queryOptions({
  queryKey: key,
  queryFn: async ({ signal }) =>
    (await api.get<{ outOfOffice: OutOfOfficeView }>(url, { signal })).outOfOffice,
});

export function useOutOfOffice() {
  return useQuery(outOfOfficeQuery);
}

export function useSaveOutOfOffice() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: OutOfOfficeBody) =>
      (await api.put<{ outOfOffice: OutOfOfficeView }>(url, body)).outOfOffice,
    onSuccess: (saved) => client.setQueryData(key, saved),
  });
}
