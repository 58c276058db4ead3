import { RefreshCw } from 'lucide-react';
import { useState } from 'react';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import type { useRotateAppSecret } from '../api/rotate-secret.ts';

/** The client secret card: rotating asks first, because the app stops signing users in at once. */
export function ClientSecretCard({
  title,
  rotate,
}: {
  title: string;
  rotate: ReturnType<typeof useRotateAppSecret>;
}) {
  const [asking, setAsking] = useState(false);
  return (
    <div className="card atrium-card mb-4">
      <div className="card-body">
        <h2 className="h6">Client secret</h2>
        <p className="small text-body-secondary">
          The secret was shown once, at install. Rotating it makes a new one and stops the old one at once;
          update the app with the new secret.
        </p>
        <button
          type="button"
          className="btn btn-outline-primary d-inline-flex align-items-center gap-2"
          onClick={() => setAsking(true)}
        >
          <RefreshCw size={16} aria-hidden="true" /> Rotate secret
        </button>
      </div>
      <ConfirmDialog
        show={asking}
        title={`Rotate the secret of ${title}?`}
        confirmLabel="Rotate secret"
        pendingLabel="Rotating…"
        pending={rotate.isPending}
        error={rotate.error}
        errorTitle="The secret was not rotated"
        onConfirm={() => rotate.mutate(undefined, { onSuccess: () => setAsking(false) })}
        onCancel={() => {
          setAsking(false);
          rotate.reset();
        }}
      >
        <p className="mb-2">
          {title} will stop signing users in until you paste the new secret into its settings. The current
          secret stops working at once.
        </p>
        <p className="small text-body-secondary mb-0">The new secret is shown once, on this page.</p>
      </ConfirmDialog>
    </div>
  );
}
