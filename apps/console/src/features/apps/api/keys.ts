/** One query-key factory for the apps area, so invalidation works by prefix. */
export const appsKeys = {
  all: ['apps'] as const,
  catalog: () => [...appsKeys.all, 'catalog'] as const,
  groupOptions: () => [...appsKeys.all, 'group-options'] as const,
  installed: () => [...appsKeys.all, 'installed'] as const,
  detail: (appId: string) => [...appsKeys.all, 'detail', appId] as const,
  /** The signed-in user's own apps (apps page and sidebar). */
  mine: () => [...appsKeys.all, 'mine'] as const,
};
