/** One query-key factory for the setup wizard. */
export const setupKeys = {
  all: ['setup'] as const,
  progress: () => [...setupKeys.all, 'progress'] as const,
};
