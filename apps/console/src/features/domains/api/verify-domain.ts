import type { VerifyDomainResponse } from '@atrium/contracts/domains';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { domainsKeys } from './keys.ts';

/** "Domain verification": looks the TXT record up now; the answer says which of four outcomes. */
export const verifyDomain = (id: string) =>
  api.post<VerifyDomainResponse>(`/api/domains/${encodeURIComponent(id)}/verify`);

export function useVerifyDomain() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: verifyDomain,
    onSuccess: ({ domain }) => {
      queryClient.setQueryData(domainsKeys.detail(domain.id), { domain });
      return queryClient.invalidateQueries({ queryKey: domainsKeys.list() });
    },
  });
}
