import type {
  AddSenderBody,
  MailProtectionResponse,
  SenderEntry,
  SenderListName,
  SenderListPage,
  SpamSettings,
} from '@atrium/contracts/mail-protection';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { mailKeys } from './mail-domains.ts';

/** Whose lists: the organisation's (Mail Settings, admins) or the signed-in person's own (profile). */
export type SenderScope = 'organization' | 'own';

const BASE: Record<SenderScope, `/api/${string}`> = {
  organization: '/api/mail/senders',
  own: '/api/profile/senders',
};

export const protectionKeys = {
  all: [...mailKeys.all, 'protection'] as const,
  settings: () => [...protectionKeys.all, 'settings'] as const,
  senders: (scope: SenderScope) => [...protectionKeys.all, 'senders', scope] as const,
  list: (scope: SenderScope, list: SenderListName) => [...protectionKeys.senders(scope), list] as const,
};

export function useMailProtection() {
  return useQuery({
    queryKey: protectionKeys.settings(),
    queryFn: ({ signal }) => api.get<MailProtectionResponse>('/api/mail/protection', { signal }),
  });
}

export function useSetSpamSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: SpamSettings) => api.put<MailProtectionResponse>('/api/mail/protection/spam', body),
    onSuccess: (data) => client.setQueryData(protectionKeys.settings(), data),
  });
}

/** One list, 50 senders at a time in order ("Show more"). */
export function useSenderList(scope: SenderScope, list: SenderListName) {
  return useInfiniteQuery({
    queryKey: protectionKeys.list(scope, list),
    queryFn: ({ pageParam, signal }) =>
      api.get<SenderListPage>(BASE[scope], { query: { list, cursor: pageParam }, signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

export function useSenderMutations(scope: SenderScope) {
  const client = useQueryClient();
  const onSettled = () => client.invalidateQueries({ queryKey: protectionKeys.senders(scope) });
  return {
    add: useMutation({
      mutationFn: (body: AddSenderBody) => api.post<SenderEntry>(BASE[scope], body),
      onSettled,
    }),
    remove: useMutation({
      mutationFn: (entryId: string) =>
        api.delete<{ ok: true }>(`${BASE[scope]}/${encodeURIComponent(entryId)}` as const),
      onSettled,
    }),
  };
}
