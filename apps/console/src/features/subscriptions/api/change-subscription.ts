import type { ChangeSubscriptionBody, SubscriptionResponse } from '@atrium/contracts/subscriptions';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { subscriptionKeys } from './keys.ts';

export const changeSubscription = (body: ChangeSubscriptionBody) =>
  api.put<SubscriptionResponse>('/api/subscription', body);

/** Changes plan or seats; the dashboard's seats and the domains limit follow. */
export function useChangeSubscription() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: changeSubscription,
    onSuccess: async (response) => {
      queryClient.setQueryData(subscriptionKeys.detail(), response);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: subscriptionKeys.mailPlan() }),
        queryClient.invalidateQueries({ queryKey: ['dashboard'] }),
        queryClient.invalidateQueries({ queryKey: ['domains'] }),
      ]);
    },
  });
}
