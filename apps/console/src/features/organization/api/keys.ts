/** One query-key factory for the organisation profile. */
export const organizationKeys = {
  all: ['organization'] as const,
  profile: () => [...organizationKeys.all, 'profile'] as const,
};
