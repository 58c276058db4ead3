import type { AppWithSecretResponse, InstallAppBody } from '@atrium/contracts/apps';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { appsKeys } from './keys.ts';

/** "App install" + "provider create"; the answer carries the client secret, once. */
export const installApp = (body: InstallAppBody) => api.post<AppWithSecretResponse>('/api/apps', body);

export function useInstallApp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: installApp,
    // The secret stays out of the query cache: only the install page's own state holds it.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: appsKeys.all }),
  });
}
