import type { GroupMembersPage } from '@atrium/contracts/groups';
import { useInfiniteQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { groupsKeys } from './keys.ts';

export const listGroupMembers = (id: string, cursor: string | undefined, signal?: AbortSignal) =>
  api.get<GroupMembersPage>(`/api/groups/${encodeURIComponent(id)}/members`, { query: { cursor }, signal });

/** A group's members, 50 at a time ("Load more"). */
export function useGroupMembers(id: string) {
  return useInfiniteQuery({
    queryKey: groupsKeys.members(id),
    queryFn: ({ pageParam, signal }) => listGroupMembers(id, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}
