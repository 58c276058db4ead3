import type { MailDomainsResponse } from '@atrium/contracts/mail-settings';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

export const mailKeys = {
  all: ['mail'] as const,
  domains: () => [...mailKeys.all, 'domains'] as const,
};

/** Each verified domain's mail records, looked up in DNS on every call (Mail Settings). */
export const mailDomainsQuery = queryOptions({
  queryKey: mailKeys.domains(),
  queryFn: ({ signal }) => api.get<MailDomainsResponse>('/api/mail/domains', { signal }),
  // DNS lookups: asked for again when the admin says so, not on every focus.
  staleTime: 60_000,
});

export function useMailDomains() {
  return useQuery(mailDomainsQuery);
}
