import type { SetUpDeviceBody, SetUpDeviceResponse } from '@atrium/contracts/devices';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { appPasswordKeys } from '../../mail/api/app-passwords.ts';

/**
 * "Set up a device" (/profile): a new app password named after the device, the values to type,
 * and for Apple devices a one-time profile link. The app passwords list shows the new one.
 */
export function useSetUpDevice() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: SetUpDeviceBody) => api.post<SetUpDeviceResponse>('/api/profile/devices', body),
    onSettled: () => client.invalidateQueries({ queryKey: appPasswordKeys.list() }),
  });
}
