import type { AppWithSecretResponse } from '@atrium/contracts/apps';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

/** A new client secret, returned once; the old one stops working at once. */
export const rotateAppSecret = (appId: string) =>
  api.post<AppWithSecretResponse>(`/api/apps/${encodeURIComponent(appId)}/secret`);

export function useRotateAppSecret(appId: string) {
  return useMutation({ mutationFn: () => rotateAppSecret(appId) });
}
