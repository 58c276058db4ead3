import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';

/** What "Clear all" removes, in words: the server deletes every notification of the caller. */
const whatGoes = (total: number) =>
  total === 1 ? 'Your 1 notification will be removed.' : `All ${total} notifications will be removed.`;

/** Asks before 'clear all' (header dropdown and /notifications alike). */
export function ClearNotificationsDialog({
  show,
  total,
  pending,
  error,
  onConfirm,
  onCancel,
}: {
  show: boolean;
  /** All the caller's notifications, shown or not (the list response's totalCount). */
  total: number;
  pending: boolean;
  error: Error | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <ConfirmDialog
      show={show}
      title="Clear all notifications?"
      confirmLabel="Clear all"
      pendingLabel="Clearing…"
      pending={pending}
      error={error}
      errorTitle="The notifications were not cleared"
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p className="mb-0">{whatGoes(total)} Read and unread alike; this cannot be undone.</p>
    </ConfirmDialog>
  );
}
