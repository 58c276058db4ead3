import type { UserDetail } from '@atrium/contracts/users';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { usersKeys } from './keys.ts';

/** "users: view" (the employee profile as an admin sees it). */
export const getUser = (id: string, signal?: AbortSignal) =>
  api.get<UserDetail>(`/api/users/${encodeURIComponent(id)}`, { signal });

export const userDetailQuery = (id: string) =>
  queryOptions({ queryKey: usersKeys.detail(id), queryFn: ({ signal }) => getUser(id, signal) });

export function useUserDetail(id: string) {
  return useQuery(userDetailQuery(id));
}
