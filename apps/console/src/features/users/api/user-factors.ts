import type { UserFactorsResponse } from '@atrium/contracts/user-factors';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { usersKeys } from './keys.ts';

const userUrl = (id: string) => `/api/users/${encodeURIComponent(id)}` as const;

/** The user's passkeys, authenticator app, recovery codes left and trusted browsers (admins). */
export function useUserFactors(userId: string) {
  return useQuery({
    queryKey: usersKeys.factors(userId),
    queryFn: ({ signal }) => api.get<UserFactorsResponse>(`${userUrl(userId)}/sign-in-factors`, { signal }),
  });
}

/** Removing one factor; the user is e-mailed by the server. Run through `useUserAction`. */
export const userFactorActions = {
  removePasskey: (userId: string, passkeyId: string) =>
    api.delete<{ ok: true }>(`${userUrl(userId)}/passkeys/${encodeURIComponent(passkeyId)}`),
  removeAuthenticator: (userId: string) => api.delete<{ ok: true }>(`${userUrl(userId)}/authenticator`),
  removeTrustedBrowser: (userId: string, browserId: string) =>
    api.delete<{ ok: true }>(`${userUrl(userId)}/trusted-browsers/${encodeURIComponent(browserId)}`),
};
