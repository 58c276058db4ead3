/**
 * One query-key factory for the domains area. `['domains', 'list']` and `['domains', 'detail', id]`
 * are also what the setup wizard uses, so either side's changes refresh the other.
 */
export const domainsKeys = {
  all: ['domains'] as const,
  list: () => [...domainsKeys.all, 'list'] as const,
  detail: (id: string) => [...domainsKeys.all, 'detail', id] as const,
  mapping: (id: string) => [...domainsKeys.all, 'mapping', id] as const,
  zoneFile: (id: string) => [...domainsKeys.all, 'zone-file', id] as const,
  deletionCheck: (id: string) => [...domainsKeys.all, 'deletion-check', id] as const,
};
