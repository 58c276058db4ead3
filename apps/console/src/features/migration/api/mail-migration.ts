import type { MailMigrationJob, StartMailMigration } from '@atrium/contracts/mail-migration';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { migrationKeys } from './migration.ts';

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
