/** Query keys of the notifications area; everything under `all` is refetched after a change. */
export const notificationsKeys = {
  all: ['notifications'] as const,
  latest: () => [...notificationsKeys.all, 'latest'] as const,
  pages: () => [...notificationsKeys.all, 'pages'] as const,
};
