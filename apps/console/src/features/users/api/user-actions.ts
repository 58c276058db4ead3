import type { ResetSignInFactorsInput } from '@atrium/contracts/user-factors';
import type { SetPasswordInput, UpdateUserInput } from '@atrium/contracts/users';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { usersKeys } from './keys.ts';

const userUrl = (id: string) => `/api/users/${encodeURIComponent(id)}` as const;

/** The user page's actions; each refreshes the user and the lists when it succeeds. */
export const userActions = {
  update: (id: string, body: UpdateUserInput) => api.patch<{ ok: true }>(userUrl(id), body),
  suspend: (id: string) => api.post<{ ok: true }>(`${userUrl(id)}/suspend`),
  reactivate: (id: string) => api.post<{ ok: true }>(`${userUrl(id)}/reactivate`),
  /** "users: delete". */
  remove: (id: string) => api.delete<{ ok: true }>(userUrl(id)),
  /** "users: password set". */
  setPassword: (id: string, body: SetPasswordInput) => api.put<{ ok: true }>(`${userUrl(id)}/password`, body),
  /** An invitation goes to the personal address when the user has one (`sentTo` says where). */
  sendPasswordLink: (id: string) =>
    api.post<{ mailSent: boolean; sentTo: string }>(`${userUrl(id)}/password-link`),
  /**
   * Removes the user's passkeys, authenticator app, recovery codes and trusted browsers (issue 17),
   * and with `revokeAppPasswords` their app passwords (issue 38).
   */
  resetSignInFactors: (id: string, body: ResetSignInFactorsInput) =>
    api.post<{ ok: true }>(`${userUrl(id)}/reset-sign-in-factors`, body),
  endSession: (id: string, sessionId: string) =>
    api.delete<{ ok: true }>(`${userUrl(id)}/sessions/${encodeURIComponent(sessionId)}`),
};

export function useUserAction<TArgs, TResult>(
  userId: string,
  action: (args: TArgs) => Promise<TResult>,
  options: { onSuccess?: (result: TResult) => void; keepDetail?: boolean } = {},
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: action,
    onSuccess: async (result) => {
      options.onSuccess?.(result);
      if (options.keepDetail === false) {
        queryClient.removeQueries({ queryKey: usersKeys.detail(userId) });
        await queryClient.invalidateQueries({ queryKey: usersKeys.lists() });
      } else {
        await queryClient.invalidateQueries({ queryKey: usersKeys.all });
      }
      await queryClient.invalidateQueries({ queryKey: ['groups'] });
    },
  });
}
