import type { ListUsersQuery, UsersPage } from '@atrium/contracts/users';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { usersKeys } from './keys.ts';

/** "users: admin list": one page of 50, filtered and sorted on the server. */
export const listUsers = (query: ListUsersQuery, signal?: AbortSignal) =>
  api.get<UsersPage>('/api/users', { query: { ...query }, signal });

export const usersListQuery = (query: ListUsersQuery) =>
  queryOptions({
    queryKey: usersKeys.list(query),
    queryFn: ({ signal }) => listUsers(query, signal),
    // The table keeps showing the previous page while the next one loads.
    placeholderData: keepPreviousData,
  });

export function useUsersList(query: ListUsersQuery, options: { enabled?: boolean } = {}) {
  return useQuery({ ...usersListQuery(query), enabled: options.enabled ?? true });
}
