import type { ChangePasswordBody, ChangePasswordResponse, OwnSession } from '@atrium/contracts/auth';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { appPasswordKeys } from '../../mail/api/app-passwords.ts';

export const profileKeys = {
  all: ['profile'] as const,
  sessions: () => [...profileKeys.all, 'sessions'] as const,
};

export const ownSessionsQuery = queryOptions({
  queryKey: profileKeys.sessions(),
  queryFn: async () => (await api.get<{ sessions: OwnSession[] }>('/api/profile/sessions')).sessions,
});

export function useOwnSessions() {
  return useQuery(ownSessionsQuery);
}

export function useEndSession() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (sessionId: string) =>
      api.delete<null>(`/api/profile/sessions/${encodeURIComponent(sessionId)}`),
    onSettled: () => client.invalidateQueries({ queryKey: profileKeys.sessions() }),
  });
}

/** Changes the password; the other sessions and every app password end with the old one. */
export function useChangePassword() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ChangePasswordBody) => api.post<ChangePasswordResponse>('/api/profile/password', body),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: profileKeys.sessions() }),
        client.invalidateQueries({ queryKey: appPasswordKeys.list() }),
      ]),
  });
}
