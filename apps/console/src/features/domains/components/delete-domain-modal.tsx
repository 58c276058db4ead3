import type { DomainSummary } from '@atrium/contracts/domains';
import Alert from 'react-bootstrap/Alert';
import Spinner from 'react-bootstrap/Spinner';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { useDeleteDomain } from '../api/delete-domain.ts';
import { useDeletionCheck } from '../api/deletion-check.ts';

/**
 * Runs the deletion check as soon as it opens, then either lists what stops the deletion
 * (the users whose addresses use the domain, by e-mail) or asks for confirmation.
 */
export function DeleteDomainModal({
  domain,
  onClose,
}: {
  domain: DomainSummary | null;
  onClose: () => void;
}) {
  const check = useDeletionCheck(domain?.id);
  const erase = useDeleteDomain();

  function close() {
    erase.reset();
    onClose();
  }

  async function confirm() {
    if (!domain) return;
    await erase.mutateAsync(domain.id);
    close();
  }

  const result = check.data;
  return (
    <ConfirmDialog
      show={domain !== null}
      title={`Delete ${domain?.displayName ?? ''}?`}
      confirmLabel="Delete domain"
      pendingLabel="Deleting…"
      pending={erase.isPending}
      error={erase.error}
      errorTitle="The domain was not deleted"
      canConfirm={result?.allowed === true}
      cancelLabel={result && !result.allowed ? 'Close' : 'Cancel'}
      onConfirm={() => void confirm().catch(() => undefined)}
      onCancel={close}
    >
      {!result ? (
        check.error ? (
          <Alert variant="danger" className="mb-0">
            <Alert.Heading as="h3" className="h6">
              The deletion check could not run
            </Alert.Heading>
            <p className="mb-0">{check.error.message}</p>
          </Alert>
        ) : (
          <div role="status" className="d-flex align-items-center gap-2">
            <Spinner animation="border" size="sm" aria-hidden="true" />
            Checking whether the domain can be deleted…
          </div>
        )
      ) : result.allowed ? (
        <p className="mb-0">
          {domain?.displayName} and its DKIM signing key will be erased. Mail and sign-in on it stop working.
          This cannot be undone.
        </p>
      ) : (
        <Alert variant="warning" className="mb-0">
          <Alert.Heading as="h3" className="h6">
            This domain cannot be deleted now
          </Alert.Heading>
          {result.reasons.map((reason) => (
            <p key={reason.code} className="mb-2">
              {reason.message}
            </p>
          ))}
          {result.users.length > 0 ? (
            <>
              <p className="mb-1 fw-semibold small">
                {result.userCount === 1 ? 'The user using it' : `Users using it (${result.userCount})`}:
              </p>
              <ul className="mb-0 small" aria-label="Users whose addresses use this domain">
                {result.users.map((user) => (
                  <li key={user.id}>
                    {user.email}
                    {user.name ? <span className="text-body-secondary"> — {user.name}</span> : null}
                  </li>
                ))}
              </ul>
              {result.userCount > result.users.length ? (
                <p className="small mb-0 mt-1">and {result.userCount - result.users.length} more.</p>
              ) : null}
            </>
          ) : null}
        </Alert>
      )}
    </ConfirmDialog>
  );
}
