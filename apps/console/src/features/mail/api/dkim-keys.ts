import type { DkimStateResponse } from '@atrium/contracts/mail-dkim';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { domainsKeys } from '../../domains/api/keys.ts';
import { mailKeys } from './mail-domains.ts';

/** The steps of a DKIM key rotation (POST …/dkim/next, …/switch; DELETE …/previous, …/next). */
export type DkimStep = 'create' | 'switch' | 'retire' | 'discard';

const request = (domainId: string, step: DkimStep) => {
  const base = `/api/mail/domains/${encodeURIComponent(domainId)}/dkim` as const;
  switch (step) {
    case 'create':
      return api.post<DkimStateResponse>(`${base}/next`);
    case 'switch':
      return api.post<DkimStateResponse>(`${base}/switch`);
    case 'retire':
      return api.delete<DkimStateResponse>(`${base}/previous`);
    case 'discard':
      return api.delete<DkimStateResponse>(`${base}/next`);
  }
};

export function useDkimStep() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ domainId, step }: { domainId: string; step: DkimStep }) => request(domainId, step),
    // The published records change with the keys: Mail Settings and the domain's DNS mapping.
    onSettled: (_data, _error, { domainId }) =>
      Promise.all([
        client.invalidateQueries({ queryKey: mailKeys.domains() }),
        client.invalidateQueries({ queryKey: domainsKeys.mapping(domainId) }),
      ]),
  });
}
