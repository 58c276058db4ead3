import { isFinished, type DryRun, type MigrationJobs, type UserImportJob } from '@atrium/contracts/migration';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

export const migrationKeys = {
  all: ['migration'] as const,
  jobs: () => [...migrationKeys.all, 'jobs'] as const,
};

/** While a job runs, the list is asked again every second: its progress bar moves live. */
export const JOBS_POLL_MS = 1000;

const csv = (file: Blob) => ({ data: file, contentType: 'text/csv' });

/** Every migration job of the organisation, newest first, polled while one is running. */
export function useMigrationJobs() {
  return useQuery({
    queryKey: migrationKeys.jobs(),
    queryFn: ({ signal }) => api.get<MigrationJobs>('/api/migration/jobs', { signal }),
    refetchInterval: (query) =>
      query.state.data?.jobs.some((job) => !isFinished(job.status)) ? JOBS_POLL_MS : false,
  });
}

/** "Check the file": the dry run, which writes nothing. */
export function useDryRun() {
  return useMutation({
    mutationFn: (file: File) =>
      api.post<DryRun>('/api/migration/user-imports/dry-run', undefined, { file: csv(file) }),
  });
}

export function useStartImport() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (file: File) =>
      api.post<UserImportJob>('/api/migration/user-imports', undefined, {
        file: csv(file),
        query: { fileName: file.name },
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: migrationKeys.all }),
  });
}

export function useCancelImport() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      api.post<UserImportJob>(`/api/migration/user-imports/${encodeURIComponent(id)}/cancel`),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: migrationKeys.all });
      await queryClient.invalidateQueries({ queryKey: ['users'] });
    },
  });
}
