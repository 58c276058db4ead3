import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';

/** Who leaves which group; Dashboard is the admin group, so leaving it takes admin away. */
export interface MemberRemoval {
  memberName: string;
  groupName: string;
  /** The Dashboard group. */
  isSystem: boolean;
}

/**
 * Asks before someone leaves a group. The server takes effect at once: admin rights with
 * Dashboard (checked on every request), and apps open only to the group lose their grants.
 */
export function RemoveMemberDialog({
  removal,
  pending,
  error,
  onConfirm,
  onCancel,
}: {
  removal: MemberRemoval | null;
  pending: boolean;
  error: Error | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const name = removal?.memberName ?? '';
  const group = removal?.groupName ?? '';
  return (
    <ConfirmDialog
      show={removal !== null}
      title={removal?.isSystem ? `Take admin away from ${name}?` : `Remove ${name} from ${group}?`}
      confirmLabel={removal?.isSystem ? 'Remove admin' : 'Remove from group'}
      pendingLabel="Removing…"
      pending={pending}
      error={error}
      errorTitle={`${name} was not removed from ${group}`}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      {removal?.isSystem ? (
        <p className="mb-0">
          {name} will lose access to the Admin Console at once, and to apps open only to {group}.
        </p>
      ) : (
        <p className="mb-0">
          {name} will lose access to the apps open only to {group}. Adding them back gives it again.
        </p>
      )}
    </ConfirmDialog>
  );
}
