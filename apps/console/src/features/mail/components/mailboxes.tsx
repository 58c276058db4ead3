import type { Mailbox } from '@atrium/contracts/mail-mailboxes';
import ProgressBar from 'react-bootstrap/ProgressBar';
import { LoadMoreButton } from '../../../components/load-more-button.tsx';
import { SectionCard } from '../../../components/section-card.tsx';
import { timeAgo } from '../../../lib/format-time.ts';
import { QueryState } from '../../apps/components/query-state.tsx';
import { formatQuota } from '../../subscriptions/components/format.ts';
import { useMailboxes } from '../api/mailboxes.ts';

/** "4 KB", "1.5 MB": usage as people read it (binary units, like Dovecot's quota). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${+value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** The mail plan's mailboxes: each one's usage against the plan's quota, in address order. */
export function Mailboxes() {
  const list = useMailboxes();
  const pages = list.data?.pages;
  return (
    <SectionCard title="Mailboxes" titleMargin="mb-1">
      {!pages ? (
        <QueryState error={list.error} what="the mailboxes" onRetry={() => void list.refetch()} />
      ) : (
        <>
          <p className="small text-body-secondary">
            Each mailbox may hold {formatQuota(pages[0]!.quotaPerMailboxMb)}; usage as the mail server last
            reported it.
          </p>
          <ul className="list-unstyled d-grid gap-3 mb-0" aria-label="Mailboxes">
            {pages
              .flatMap((page) => page.mailboxes)
              .map((mailbox) => (
                <MailboxItem key={mailbox.userId} mailbox={mailbox} />
              ))}
          </ul>
          <LoadMoreButton pages={list}>Show more</LoadMoreButton>
        </>
      )}
    </SectionCard>
  );
}

function MailboxItem({ mailbox }: { mailbox: Mailbox }) {
  const used = mailbox.usedBytes ?? 0;
  const percent = Math.min(100, Math.round((used / mailbox.quotaBytes) * 100));
  const variant = percent >= 95 ? 'danger' : percent >= 80 ? 'warning' : undefined;
  const usage =
    mailbox.usedBytes === null
      ? 'Nothing reported yet'
      : `${formatBytes(mailbox.usedBytes)} of ${formatBytes(mailbox.quotaBytes)} · ${(mailbox.messages ?? 0).toLocaleString('en')} ${mailbox.messages === 1 ? 'message' : 'messages'}`;
  return (
    <li aria-label={mailbox.email}>
      <div className="d-flex flex-wrap justify-content-between gap-1 small">
        <span className="min-w-0 text-break">
          <span className="fw-semibold">{mailbox.name || mailbox.email}</span>
          {mailbox.name ? <span className="text-body-secondary"> · {mailbox.email}</span> : null}
          {mailbox.status === 'suspended' ? <span className="text-body-secondary"> (suspended)</span> : null}
          {mailbox.status === 'invited' ? <span className="text-body-secondary"> (invited)</span> : null}
        </span>
        <span
          className="text-body-secondary"
          title={mailbox.updatedAt ? `Reported ${timeAgo(mailbox.updatedAt)}` : undefined}
        >
          {usage}
        </span>
      </div>
      {/* The bar inside carries role="progressbar", so its name goes on it, not on the track. */}
      <ProgressBar className="mt-1" style={{ height: '0.5rem' }}>
        <ProgressBar
          now={percent}
          {...(variant ? { variant } : {})}
          aria-label={`${mailbox.email}: ${percent}% of the quota used`}
        />
      </ProgressBar>
    </li>
  );
}
