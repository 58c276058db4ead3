import type { EmailDomains } from '@atrium/contracts/users';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { usersKeys } from './keys.ts';

export const getEmailDomains = (signal?: AbortSignal) =>
  api.get<EmailDomains>('/api/users/email-domains', { signal });

export const emailDomainsQuery = () =>
  queryOptions({ queryKey: usersKeys.emailDomains(), queryFn: ({ signal }) => getEmailDomains(signal) });

export function useEmailDomains() {
  return useQuery(emailDomainsQuery());
}
