import type { UnreadCount } from '@atrium/contracts/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { notificationsKeys } from './keys.ts';

// The three changes a user makes to their own notifications. Each refetches the dropdown and the
// full list afterwards, so both show what the server now holds.

export function markNotificationRead(id: string) {
  return api.post<UnreadCount>(`/api/notifications/${encodeURIComponent(id)}/read`);
}

export function markAllNotificationsRead() {
  return api.post<UnreadCount>('/api/notifications/read-all');
}

export function clearNotifications() {
  return api.delete<{ deleted: number }>('/api/notifications');
}

function useNotificationsChange<TArg, TResult>(change: (arg: TArg) => Promise<TResult>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: change,
    onSettled: () => queryClient.invalidateQueries({ queryKey: notificationsKeys.all }),
  });
}

export const useMarkNotificationRead = () => useNotificationsChange(markNotificationRead);
export const useMarkAllNotificationsRead = () => useNotificationsChange(markAllNotificationsRead);
export const useClearNotifications = () => useNotificationsChange(clearNotifications);
