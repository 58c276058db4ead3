import type {
  MailMigrationDetail,
  MailMigrationJob,
  StartMailMigration,
} from '@atrium/contracts/mail-migration';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { JOBS_POLL_MS, migrationKeys } from './migration.ts';

/** Mail from the old provider over IMAP; the jobs show in the shared list (useMigrationJobs). */

const path = (id: string, action: string) =>
  `/api/migration/mail-migrations/${encodeURIComponent(id)}/${action}` as const;

function useRefreshingMutation<Input, Output>(mutationFn: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: migrationKeys.all }),
  });
}

export const useStartMailMigration = () =>
  useRefreshingMutation((input: StartMailMigration) =>
    api.post<MailMigrationJob>('/api/migration/mail-migrations', input),
  );

export const useStartMailMigrationsFromCsv = () =>
  useRefreshingMutation((file: File) =>
    api.post<{ jobs: MailMigrationJob[] }>('/api/migration/mail-migrations/csv', undefined, {
      file: { data: file, contentType: 'text/csv' },
    }),
  );

export const useCancelMailMigration = () =>
  useRefreshingMutation((id: string) => api.post<MailMigrationJob>(path(id, 'cancel')));

export const useRerunMailMigration = () =>
  useRefreshingMutation(({ id, password }: { id: string; password: string }) =>
    api.post<MailMigrationJob>(path(id, 'rerun'), { password }),
  );

/** One migration's folders, read when the admin opens them (and again while it runs). */
export function useMailMigrationFolders(id: string, open: boolean, running: boolean) {
  return useQuery({
    queryKey: [...migrationKeys.all, 'mail', id],
    queryFn: ({ signal }) =>
      api.get<MailMigrationDetail>(`/api/migration/mail-migrations/${encodeURIComponent(id)}`, { signal }),
    enabled: open,
    refetchInterval: open && running ? JOBS_POLL_MS : false,
  });
}
