import type { AppPasswordView } from '@atrium/contracts/app-passwords';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { usersKeys } from './keys.ts';

const appPasswordsUrl = (userId: string) => `/api/users/${encodeURIComponent(userId)}/app-passwords` as const;

/** The user's app passwords, i.e. their devices (admins, /users/:id), newest first. */
export function useUserAppPasswords(userId: string) {
  return useQuery({
    queryKey: usersKeys.appPasswords(userId),
    queryFn: async ({ signal }) =>
      (await api.get<{ appPasswords: AppPasswordView[] }>(appPasswordsUrl(userId), { signal })).appPasswords,
  });
}

/** Revoking one: the device using it is refused at once. Run through `useUserAction`. */
export const userAppPasswordActions = {
  revoke: (userId: string, appPasswordId: string) =>
    api.delete<null>(`${appPasswordsUrl(userId)}/${encodeURIComponent(appPasswordId)}`),
};
