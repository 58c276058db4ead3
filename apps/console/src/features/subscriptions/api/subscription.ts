import type { SubscriptionResponse } from '@atrium/contracts/subscriptions';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { subscriptionKeys } from './keys.ts';

/** Plan, seats used of bought, dates, the plans to change to and the history. */
export const getSubscription = (signal?: AbortSignal) =>
  api.get<SubscriptionResponse>('/api/subscription', { signal });

export const subscriptionQuery = () =>
  queryOptions({
    queryKey: subscriptionKeys.detail(),
    queryFn: ({ signal }) => getSubscription(signal),
    // Seats used change on the users pages, which invalidate nothing here.
    staleTime: 0,
  });

export function useSubscription() {
  return useQuery(subscriptionQuery());
}
