import type { AppDetail, UpdateAppBody } from '@atrium/contracts/apps';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { appsKeys } from './keys.ts';

export const updateApp = async (appId: string, body: UpdateAppBody) =>
  (await api.put<{ app: AppDetail }>(`/api/apps/${encodeURIComponent(appId)}`, body)).app;

export function useUpdateApp(appId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateAppBody) => updateApp(appId, body),
    onSuccess: async (app) => {
      queryClient.setQueryData(appsKeys.detail(appId), app);
      await queryClient.invalidateQueries({ queryKey: appsKeys.all });
    },
  });
}
