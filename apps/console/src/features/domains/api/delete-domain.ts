import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { domainsKeys } from './keys.ts';

/** "Domain erase": refused by the server while the deletion check refuses. */
export const deleteDomain = (id: string) => api.delete<null>(`/api/domains/${encodeURIComponent(id)}`);

export function useDeleteDomain() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteDomain,
    onSuccess: (_data, id) => {
      queryClient.removeQueries({ queryKey: domainsKeys.detail(id) });
      return queryClient.invalidateQueries({ queryKey: domainsKeys.list() });
    },
  });
}
