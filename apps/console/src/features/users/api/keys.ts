import type { ListUsersQuery } from '@atrium/contracts/users';

/** One query-key factory for users; invalidating `usersKeys.all` refreshes every list and page. */
export const usersKeys = {
  all: ['users'] as const,
  lists: () => [...usersKeys.all, 'list'] as const,
  list: (query: ListUsersQuery) => [...usersKeys.lists(), query] as const,
  detail: (id: string) => [...usersKeys.all, 'detail', id] as const,
  factors: (id: string) => [...usersKeys.all, 'factors', id] as const,
  appPasswords: (id: string) => [...usersKeys.all, 'app-passwords', id] as const,
  emailDomains: () => [...usersKeys.all, 'email-domains'] as const,
  link: (token: string) => ['set-password-link', token] as const,
};
