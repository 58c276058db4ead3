import type { DomainResponse } from '@atrium/contracts/domains';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { domainsKeys } from './keys.ts';

export const makeDomainPrimary = (id: string) =>
  api.post<DomainResponse>(`/api/domains/${encodeURIComponent(id)}/primary`);

export function useMakePrimary() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: makeDomainPrimary,
    // The previous primary changed too: refresh every domain query.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: domainsKeys.all }),
  });
}
