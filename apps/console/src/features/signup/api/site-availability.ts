import type { SiteAvailability } from '@atrium/contracts/signup';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api } from '../../../lib/api-client.ts';
import { signupKeys } from './keys.ts';

/** "site validation" while the visitor types. */
export const checkSiteAvailability = (siteName: string, signal?: AbortSignal) =>
  api.get<SiteAvailability>('/api/signup/site-availability', { query: { siteName }, signal });

export const siteAvailabilityQuery = (siteName: string) =>
  queryOptions({
    queryKey: signupKeys.availability(siteName),
    queryFn: ({ signal }) => checkSiteAvailability(siteName, signal),
    staleTime: 10_000,
  });

/** Asks once the visitor pauses typing (400 ms), so a name costs one request, not one a key. */
export function useSiteAvailability(siteName: string) {
  const [settled, setSettled] = useState(siteName);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(siteName), 400);
    return () => clearTimeout(timer);
  }, [siteName]);
  return useQuery({ ...siteAvailabilityQuery(settled), enabled: settled.length > 0 });
}
