import type { AppPasswordView, CreateAppPasswordBody } from '@atrium/contracts/app-passwords';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

/** Your own app passwords for mail clients (/profile). */
export const appPasswordKeys = {
  all: ['app-passwords'] as const,
  list: () => [...appPasswordKeys.all, 'list'] as const,
};

const base = '/api/profile/app-passwords';

export const appPasswordsQuery = queryOptions({
  queryKey: appPasswordKeys.list(),
  queryFn: async ({ signal }) =>
    (await api.get<{ appPasswords: AppPasswordView[] }>(base, { signal })).appPasswords,
});

export function useAppPasswords() {
  return useQuery(appPasswordsQuery);
}

export function useCreateAppPassword() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateAppPasswordBody) =>
      api.post<{ appPassword: AppPasswordView; password: string }>(base, body),
    onSettled: () => client.invalidateQueries({ queryKey: appPasswordKeys.list() }),
  });
}

export function useRevokeAppPassword() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete<null>(`${base}/${encodeURIComponent(id)}`),
    onSettled: () => client.invalidateQueries({ queryKey: appPasswordKeys.list() }),
  });
}
