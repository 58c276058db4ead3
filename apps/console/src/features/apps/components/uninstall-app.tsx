import { Trash2 } from 'lucide-react';
import { useState } from 'react';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { useUninstallApp } from '../api/uninstall-app.ts';

/** Uninstall behind a confirmation: the app's client, grants and tokens are deleted with it. */
export function UninstallApp({ appId, title, onDone }: { appId: string; title: string; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  const uninstall = useUninstallApp(appId);
  return (
    <>
      <button
        type="button"
        className="btn btn-outline-danger d-inline-flex align-items-center gap-2"
        onClick={() => setOpen(true)}
      >
        <Trash2 size={16} aria-hidden="true" /> Uninstall
      </button>
      <ConfirmDialog
        show={open}
        title={`Uninstall ${title}?`}
        confirmLabel={`Uninstall ${title}`}
        pendingLabel="Uninstalling…"
        pending={uninstall.isPending}
        error={uninstall.error}
        errorTitle="The app was not uninstalled"
        onConfirm={() => uninstall.mutate(undefined, { onSuccess: onDone })}
        onCancel={() => {
          setOpen(false);
          uninstall.reset();
        }}
      >
        <p className="mb-2">
          Nobody will be able to sign in to {title} with Atrium any more. Its client is deleted, and the
          sessions and tokens it holds stop working at once.
        </p>
        <p className="mb-0 text-body-secondary small">
          This cannot be undone; installing it again gives it a new client ID and secret.
        </p>
      </ConfirmDialog>
    </>
  );
}
