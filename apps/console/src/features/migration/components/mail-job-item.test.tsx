import type { MailMigrationJob } from '@atrium/contracts/mail-migration';
import { cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderAt } from '../../../test-utils.tsx';
import { JOB_STATUS, MailJobItem } from './mail-job-item.tsx';

afterEach(cleanup);

const job: MailMigrationJob = {
  kind: 'mail',
  id: '6f1c2f7e-0000-4000-8000-000000000001',
  status: 'cancelled',
  email: 'ana@acme.test',
  source: { host: 'imap.old.test', port: 993, tls: 'tls', login: 'ana' },
  runs: 1,
  messagesTotal: 10,
  messagesDone: 4,
  bytesTotal: 1000,
  bytesDone: 400,
  folderErrors: 0,
  startedBy: 'Admin',
  createdAt: '2026-11-01T10:00:00.000Z',
  finishedAt: '2026-11-01T10:05:00.000Z',
  error: null,
};

describe('migration status badges', () => {
  it('show "Cancelled" in dark text on the warning yellow (white on #ffc107 is 1.63:1)', () => {
    renderAt(<MailJobItem job={job} onCancel={() => {}} onRerun={() => {}} />);
    const badge = screen.getByText('Cancelled');
    expect(badge.className).toContain('bg-warning');
    expect(badge.className).toContain('text-dark');
  });

  it('give every yellow badge dark text', () => {
    for (const status of Object.values(JOB_STATUS)) {
      if (status.bg === 'warning') expect(status.text).toBe('dark');
    }
  });
});
