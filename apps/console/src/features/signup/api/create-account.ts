import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

export interface AccountBody {
  firstName: string;
  lastName: string;
  password: string;
  passwordConfirmation: string;
}

/** The last stage: creates the organisation; the answer says where single sign-on starts. */
export const createAccount = (body: AccountBody) =>
  api.post<{ redirectTo: string }>('/api/signup/account', body);

export function useCreateAccount() {
  return useMutation({ mutationFn: createAccount });
}
