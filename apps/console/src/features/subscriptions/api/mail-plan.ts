import type { MailPlan } from '@atrium/contracts/subscriptions';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { subscriptionKeys } from './keys.ts';

/** The seed spec's "mail plan details": quota per mailbox and, where mail is set up, usage. */
export const getMailPlan = (signal?: AbortSignal) =>
  api.get<MailPlan>('/api/subscription/mail-plan', { signal });

export const mailPlanQuery = () =>
  queryOptions({ queryKey: subscriptionKeys.mailPlan(), queryFn: ({ signal }) => getMailPlan(signal) });

export function useMailPlan() {
  return useQuery(mailPlanQuery());
}
