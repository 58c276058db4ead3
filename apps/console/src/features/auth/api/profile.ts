import type { ChangePasswordBody, OwnSession } from '@atrium/contracts/auth';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

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

export function useChangePassword() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ChangePasswordBody) => api.post<{ message: string }>('/api/profile/password', body),
    onSuccess: () => client.invalidateQueries({ queryKey: profileKeys.sessions() }),
  });
}
