import { PageHeader } from '../../components/page-header.tsx';
import { MailMigrationCard } from '../../features/migration/components/mail-migration-card.tsx';
import { MigrationJobsCard } from '../../features/migration/components/migration-jobs.tsx';
import { UserImportCard } from '../../features/migration/components/user-import-card.tsx';
import { TakeoutCard } from '../../features/takeout/components/takeout-card.tsx';

/**
 * Data Migration (README and docs/mail.md): one card per kind of job to start (users from CSV, mail over
 * IMAP), and every job, running and past, in one list below. At the end, the way out: everything of
 * the organisation as one archive (takeout).
 */
export default function DataMigrationPage() {
  return (
    <>
      <PageHeader
        title="Data Migration"
        description="Bring your people and their mail in from your old provider: each import and each mailbox runs in the background."
      />
      <UserImportCard />
      <MailMigrationCard />
      <MigrationJobsCard />
      <TakeoutCard />
    </>
  );
}
