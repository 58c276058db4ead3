/** One query-key factory for the subscription area. */
export const subscriptionKeys = {
  all: ['subscription'] as const,
  detail: () => [...subscriptionKeys.all, 'detail'] as const,
  mailPlan: () => [...subscriptionKeys.all, 'mail-plan'] as const,
};
