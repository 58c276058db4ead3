import type { OrganizationProfile, OrganizationProfileInput } from '@atrium/contracts/organizations';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { organizationKeys } from './keys.ts';

/** "organisation profile": read. */
export const getOrganizationProfile = (signal?: AbortSignal) =>
  api.get<OrganizationProfile>('/api/organization', { signal });

export const organizationProfileQuery = () =>
  queryOptions({
    queryKey: organizationKeys.profile(),
    queryFn: ({ signal }) => getOrganizationProfile(signal),
  });

export function useOrganizationProfile() {
  return useQuery(organizationProfileQuery());
}

/** "organisation profile": save. The header shows the name, so the session is refreshed too. */
export const updateOrganizationProfile = (body: OrganizationProfileInput) =>
  api.put<OrganizationProfile>('/api/organization', body);

export function useUpdateOrganizationProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateOrganizationProfile,
    onSuccess: async (profile) => {
      queryClient.setQueryData(organizationKeys.profile(), profile);
      await queryClient.invalidateQueries({ queryKey: ['session'] });
    },
  });
}
