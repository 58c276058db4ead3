/** One query-key factory for sign-up. */
export const signupKeys = {
  all: ['signup'] as const,
  state: () => [...signupKeys.all, 'state'] as const,
  availability: (siteName: string) => [...signupKeys.all, 'availability', siteName] as const,
};
