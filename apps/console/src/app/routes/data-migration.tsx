import { PageHeader } from '../../components/page-header.tsx';
import { MigrationJobsCard } from '../../features/migration/components/migration-jobs.tsx';
import { UserImportCard } from '../../features/migration/components/user-import-card.tsx';

/**
 * Data Migration (PRODUCT.md §4.12): one card per kind of job to start (users from CSV now, mail
 * over IMAP later), and every job, running and past, in one list below.
 */
export default function DataMigrationPage() {
  return (
    <>
      <PageHeader
        title="Data Migration"
        description="Bring your people in from your old provider: check a file first, then import it in the background."
      />
      <UserImportCard />
      <MigrationJobsCard />
    </>
  );
}
