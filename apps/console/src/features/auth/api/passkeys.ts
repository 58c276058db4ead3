import type { CurrentPasswordBody } from '@atrium/contracts/authenticator';
import type {
  PasskeyOptionsResponse,
  PasskeysResponse,
  RegisterPasskeyResponse,
} from '@atrium/contracts/passkeys';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { profileKeys } from './profile.ts';

/** The user's passkeys on /profile (issue 17). */
const passkeysKey = () => [...profileKeys.all, 'passkeys'] as const;

export const passkeysQuery = queryOptions({
  queryKey: passkeysKey(),
  queryFn: () => api.get<PasskeysResponse>('/api/profile/passkeys'),
});

export function usePasskeys() {
  return useQuery(passkeysQuery);
}

/**
 * Adding one: the password opens the server's options, the browser makes the passkey (the
 * WebAuthn library is fetched only now), and the server checks and keeps it.
 */
export function useAddPasskey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: { name: string; currentPassword: string }) => {
      const { options } = await api.post<PasskeyOptionsResponse>('/api/profile/passkeys/options', {
        currentPassword: input.currentPassword,
      });
      const { startRegistration } = await import('@simplewebauthn/browser');
      const response = await startRegistration({ optionsJSON: options as never });
      return api.post<RegisterPasskeyResponse>('/api/profile/passkeys', { name: input.name, response });
    },
    // Recovery codes may have come with it: the authenticator section counts them too.
    onSettled: () => client.invalidateQueries({ queryKey: profileKeys.all }),
  });
}

export function useRemovePasskey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { id: string } & CurrentPasswordBody) =>
      api.post<null>(`/api/profile/passkeys/${encodeURIComponent(input.id)}/remove`, {
        currentPassword: input.currentPassword,
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: profileKeys.all }),
  });
}
