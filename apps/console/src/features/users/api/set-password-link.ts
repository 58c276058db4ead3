import type { AcceptedInvitation, AcceptInvitationInput, Invitation } from '@atrium/contracts/invitations';
import { queryOptions, useMutation, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { usersKeys } from './keys.ts';

const linkUrl = (token: string) => `/api/invitations/${encodeURIComponent(token)}` as const;

/** Public: who a set-password link (invitation or reset) is for, or why it no longer works. */
export const getSetPasswordLink = (token: string, signal?: AbortSignal) =>
  api.get<Invitation>(linkUrl(token), { signal });

export const setPasswordLinkQuery = (token: string) =>
  queryOptions({
    queryKey: usersKeys.link(token),
    queryFn: ({ signal }) => getSetPasswordLink(token, signal),
    retry: false,
    staleTime: Infinity,
  });

export function useSetPasswordLink(token: string) {
  return useQuery(setPasswordLinkQuery(token));
}

export const acceptSetPasswordLink = (token: string, body: AcceptInvitationInput) =>
  api.post<AcceptedInvitation>(`${linkUrl(token)}/accept`, body);

export function useAcceptSetPasswordLink(token: string) {
  return useMutation({ mutationFn: (body: AcceptInvitationInput) => acceptSetPasswordLink(token, body) });
}
