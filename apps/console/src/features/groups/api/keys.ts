/** One query-key factory for groups. */
export const groupsKeys = {
  all: ['groups'] as const,
  list: () => [...groupsKeys.all, 'list'] as const,
  members: (id: string) => [...groupsKeys.all, 'members', id] as const,
};
