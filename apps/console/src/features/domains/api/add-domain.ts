import type { AddDomainBody, DomainResponse } from '@atrium/contracts/domains';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { domainsKeys } from './keys.ts';

export const addDomain = (body: AddDomainBody) => api.post<DomainResponse>('/api/domains', body);

export function useAddDomain() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: addDomain,
    onSuccess: ({ domain }) => {
      queryClient.setQueryData(domainsKeys.detail(domain.id), { domain });
      return queryClient.invalidateQueries({ queryKey: domainsKeys.list() });
    },
  });
}
