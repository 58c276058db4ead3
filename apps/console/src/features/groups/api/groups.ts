import type { Group, GroupInput } from '@atrium/contracts/groups';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { groupsKeys } from './keys.ts';

export const listGroups = (signal?: AbortSignal) => api.get<{ groups: Group[] }>('/api/groups', { signal });

export const groupsQuery = () =>
  queryOptions({ queryKey: groupsKeys.list(), queryFn: ({ signal }) => listGroups(signal) });

export function useGroups() {
  return useQuery(groupsQuery());
}

const groupUrl = (id: string) => `/api/groups/${encodeURIComponent(id)}` as const;

export const groupActions = {
  create: (body: GroupInput) => api.post<Group>('/api/groups', body),
  rename: (id: string, body: GroupInput) => api.patch<Group>(groupUrl(id), body),
  remove: (id: string) => api.delete<{ ok: true }>(groupUrl(id)),
  addMembers: (id: string, userIds: string[]) => api.post<Group>(`${groupUrl(id)}/members`, { userIds }),
  removeMember: (id: string, userId: string) =>
    api.delete<{ ok: true }>(`${groupUrl(id)}/members/${encodeURIComponent(userId)}`),
};

/** Any change to groups or memberships refreshes groups, users (their groups column) and the session (admin flag). */
export function useGroupMutation<TArgs, TResult>(action: (args: TArgs) => Promise<TResult>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: action,
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: groupsKeys.all }),
        queryClient.invalidateQueries({ queryKey: ['users'] }),
        queryClient.invalidateQueries({ queryKey: ['session'] }),
      ]);
    },
  });
}
