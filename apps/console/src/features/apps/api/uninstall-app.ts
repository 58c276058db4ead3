import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { appsKeys } from './keys.ts';

/** "App delete" + "provider delete": the client, its grants and its tokens go with it. */
export const uninstallApp = (appId: string) => api.delete<void>(`/api/apps/${encodeURIComponent(appId)}`);

export function useUninstallApp(appId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => uninstallApp(appId),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: appsKeys.detail(appId) });
      await queryClient.invalidateQueries({ queryKey: appsKeys.all });
    },
  });
}
