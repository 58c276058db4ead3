import type { AddUserInput, CreatedUser } from '@atrium/contracts/users';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { usersKeys } from './keys.ts';

/** "users: create". */
export const addUser = (body: AddUserInput) => api.post<CreatedUser>('/api/users', body);

export function useAddUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: addUser,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: usersKeys.all });
      await queryClient.invalidateQueries({ queryKey: ['groups'] });
    },
  });
}
