import type { Takeout, Takeouts } from '@atrium/contracts/takeout';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

export const takeoutKeys = {
  all: ['takeout'] as const,
};

/** While an export runs, the list is asked again every second: its progress moves live. */
const POLL_MS = 1000;

const running = (takeout: Takeout) => takeout.status === 'queued' || takeout.status === 'running';

/** The organisation's latest exports, newest first, polled while one is running. */
export function useTakeouts() {
  return useQuery({
    queryKey: takeoutKeys.all,
    queryFn: ({ signal }) => api.get<Takeouts>('/api/takeout', { signal }),
    refetchInterval: (query) => (query.state.data?.takeouts.some(running) ? POLL_MS : false),
  });
}

export function useStartTakeout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<Takeout>('/api/takeout'),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: takeoutKeys.all }),
  });
}

export const isRunning = running;
