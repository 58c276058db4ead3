import type { SetupProgress } from '@atrium/contracts/setup';
import type { SetupPage, SetupStep } from '@atrium/contracts/setup-steps';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { setupKeys } from './keys.ts';

/** "admin-setup login status": where the wizard stands for this organisation. */
export const getSetupProgress = (signal?: AbortSignal) => api.get<SetupProgress>('/api/setup', { signal });

export const setupProgressQuery = () =>
  queryOptions({
    queryKey: setupKeys.progress(),
    queryFn: ({ signal }) => getSetupProgress(signal),
    staleTime: 0,
  });

export function useSetupProgress() {
  return useQuery(setupProgressQuery());
}

function useProgressMutation<TArgs>(call: (args: TArgs) => Promise<SetupProgress>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: async (progress) => {
      queryClient.setQueryData(setupKeys.progress(), progress);
      // The dashboard's checklist reads the same progress.
      await queryClient.invalidateQueries({ queryKey: ['dashboard'] });
    },
  });
}

export const useMarkStep = () =>
  useProgressMutation(({ step, outcome }: { step: SetupStep; outcome: 'done' | 'skipped' }) =>
    api.post<SetupProgress>(`/api/setup/steps/${step}`, { outcome }),
  );

export const useMoveStep = () =>
  useProgressMutation((currentStep: SetupPage) =>
    api.put<SetupProgress>('/api/setup/progress', { currentStep }),
  );

/** "admin-setup completion". */
export const useCompleteSetup = () =>
  useProgressMutation(() => api.post<SetupProgress>('/api/setup/complete', {}));
