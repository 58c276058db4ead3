import type { SessionResponse } from '@atrium/contracts/auth';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, setCsrfToken } from '../../../lib/api-client.ts';
import { ADMIN_GROUP } from '../../../lib/constants.ts';

export interface CurrentUser {
  id: string;
  name: string;
  firstName: string;
  lastName: string;
  email: string;
  isAdmin: boolean;
  groups: { name: string }[];
  organization: { name: string; siteName: string; siteUrl: string };
  /** Where 'My account' leads: a console path or the operator's external account portal. */
  accountPortalUrl: string;
}

/** The seed spec's admin flag: true when the user's groups include one named Dashboard. */
export function isAdminFromGroups(groups: { name: string }[]): boolean {
  return groups.some((group) => group.name === ADMIN_GROUP);
}

/**
 * What the console shows before the session has loaded: nobody. The route guard loads the
 * session before any signed-in page renders, so this is seen only outside the guarded routes
 * (the seed spec's 'User name' / 'User email id' fallbacks apply).
 */
export const signedOutUser: CurrentUser = {
  id: '',
  name: '',
  firstName: '',
  lastName: '',
  email: '',
  isAdmin: false,
  groups: [],
  organization: { name: '', siteName: '', siteUrl: '' },
  accountPortalUrl: '/profile',
};

export const sessionKeys = { all: ['session'] as const };

/** GET /api/session; keeps the CSRF token it carries for every later write. 401 when signed out. */
export async function fetchCurrentUser(): Promise<CurrentUser> {
  const session = await api.get<SessionResponse>('/api/session');
  setCsrfToken(session.csrfToken);
  return {
    ...session.user,
    isAdmin: session.user.isAdmin || isAdminFromGroups(session.user.groups),
    organization: session.organization,
    accountPortalUrl: session.accountPortalUrl,
  };
}

export const currentUserQuery = queryOptions({
  queryKey: sessionKeys.all,
  queryFn: fetchCurrentUser,
  staleTime: 5 * 60_000,
});

export function useCurrentUser(): CurrentUser {
  return useQuery(currentUserQuery).data ?? signedOutUser;
}
