import type { Takeout, TakeoutDownloadLink, Takeouts } from '@atrium/contracts/takeout';
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

/** Follows a download link: the browser saves the archive and the page stays. */
function startDownload(url: string) {
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = '';
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
}

/**
 * Download: asks for a link that works once, for a minute, with this session (issue 38), and
 * follows it at once. A refusal (the archive expired meanwhile) refreshes the list.
 */
export function useDownloadTakeout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      api.post<TakeoutDownloadLink>(`/api/takeout/${encodeURIComponent(id)}/download-link`),
    onSuccess: (link) => startDownload(link.url),
    onError: () => queryClient.invalidateQueries({ queryKey: takeoutKeys.all }),
  });
}

export const isRunning = running;
