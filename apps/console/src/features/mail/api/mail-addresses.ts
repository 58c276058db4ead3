import type {
  AddMailAliasBody,
  CatchAllsResponse,
  GroupAddress,
  GroupAddressesResponse,
  MailAddressInput,
  MailAlias,
  MailAliasesPage,
  SetCatchAllBody,
} from '@atrium/contracts/mail-addresses';
import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { mailKeys } from './mail-domains.ts';

/** Mail Settings' addresses: users' aliases, group addresses, catch-alls. */
export const mailAddressKeys = {
  all: [...mailKeys.all, 'addresses'] as const,
  aliases: (q: string) => [...mailAddressKeys.all, 'aliases', q] as const,
  groupAddresses: () => [...mailAddressKeys.all, 'group-addresses'] as const,
  catchAlls: () => [...mailAddressKeys.all, 'catch-alls'] as const,
};

/** The aliases whose address starts with `q`, 50 at a time ("Show more"). */
export function useMailAliases(q: string) {
  return useInfiniteQuery({
    queryKey: mailAddressKeys.aliases(q),
    queryFn: ({ pageParam, signal }) =>
      api.get<MailAliasesPage>('/api/mail/aliases', {
        query: { q: q || undefined, cursor: pageParam },
        signal,
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    placeholderData: keepPreviousData,
  });
}

export function useGroupAddresses() {
  return useQuery({
    queryKey: mailAddressKeys.groupAddresses(),
    queryFn: ({ signal }) => api.get<GroupAddressesResponse>('/api/mail/group-addresses', { signal }),
  });
}

export function useCatchAlls() {
  return useQuery({
    queryKey: mailAddressKeys.catchAlls(),
    queryFn: ({ signal }) => api.get<CatchAllsResponse>('/api/mail/catch-alls', { signal }),
  });
}

const id = encodeURIComponent;

export const mailAddressActions = {
  addAlias: (body: AddMailAliasBody) => api.post<MailAlias>('/api/mail/aliases', body),
  removeAlias: (aliasId: string) => api.delete<{ ok: true }>(`/api/mail/aliases/${id(aliasId)}`),
  setGroupAddress: (args: { groupId: string } & MailAddressInput) =>
    api.put<GroupAddress>(`/api/mail/group-addresses/${id(args.groupId)}`, {
      localPart: args.localPart,
      domain: args.domain,
    }),
  removeGroupAddress: (groupId: string) =>
    api.delete<{ ok: true }>(`/api/mail/group-addresses/${id(groupId)}`),
  setCatchAll: (args: { domainId: string } & SetCatchAllBody) =>
    api.put<CatchAllsResponse>(`/api/mail/catch-alls/${id(args.domainId)}`, { type: args.type, id: args.id }),
  removeCatchAll: (domainId: string) => api.delete<{ ok: true }>(`/api/mail/catch-alls/${id(domainId)}`),
};

/** Any change of an address refreshes every address list (one taken here may free one there). */
export function useMailAddressMutation<TArgs, TResult>(action: (args: TArgs) => Promise<TResult>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: action,
    onSettled: () => client.invalidateQueries({ queryKey: mailAddressKeys.all }),
  });
}
