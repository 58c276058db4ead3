import type { MailboxesPage } from '@atrium/contracts/mail-mailboxes';
import { useInfiniteQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { mailKeys } from './mail-domains.ts';

export const mailboxKeys = {
  all: [...mailKeys.all, 'mailboxes'] as const,
};

/** The mailboxes of the mail plan with quota and usage, 50 at a time ("Show more"). */
export function useMailboxes() {
  return useInfiniteQuery({
    queryKey: mailboxKeys.all,
    queryFn: ({ pageParam, signal }) =>
      api.get<MailboxesPage>('/api/mail/mailboxes', { query: { cursor: pageParam }, signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}
