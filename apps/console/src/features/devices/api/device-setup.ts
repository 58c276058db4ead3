import type { DeviceSetupStatus, SetUpDeviceBody, SetUpDeviceResponse } from '@atrium/contracts/devices';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { appPasswordKeys } from '../../mail/api/app-passwords.ts';

export const deviceKeys = {
  all: ['devices'] as const,
  status: () => [...deviceKeys.all, 'status'] as const,
};

/** Whether this server offers "Set up a device" (false until the operator sets MAIL_HOST). */
export const deviceSetupStatusQuery = queryOptions({
  queryKey: deviceKeys.status(),
  queryFn: ({ signal }) => api.get<DeviceSetupStatus>('/api/profile/devices', { signal }),
  // An operator setting: it changes with a restart, not while the page is open.
  staleTime: 5 * 60_000,
});

export function useDeviceSetupStatus() {
  return useQuery(deviceSetupStatusQuery);
}

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
