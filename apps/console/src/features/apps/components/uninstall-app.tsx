import { Trash2 } from 'lucide-react';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Modal from 'react-bootstrap/Modal';
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
      <Modal show={open} onHide={() => setOpen(false)} centered aria-labelledby="uninstall-title">
        <Modal.Header closeButton closeLabel="Close">
          <Modal.Title id="uninstall-title" as="h2" className="h5">
            Uninstall {title}?
          </Modal.Title>
        </Modal.Header>
        <Modal.Body>
          <p className="mb-2">
            Nobody will be able to sign in to {title} with Atrium any more. Its client is deleted, and the
            sessions and tokens it holds stop working at once.
          </p>
          <p className="mb-0 text-body-secondary small">
            This cannot be undone; installing it again gives it a new client ID and secret.
          </p>
          {uninstall.isError ? (
            <Alert variant="danger" className="mt-3 mb-0">
              <Alert.Heading as="h3" className="h6">
                The app could not be uninstalled
              </Alert.Heading>
              <p className="mb-0">{uninstall.error.message}</p>
            </Alert>
          ) : null}
        </Modal.Body>
        <Modal.Footer>
          <button type="button" className="btn btn-outline-secondary" onClick={() => setOpen(false)}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-danger"
            disabled={uninstall.isPending}
            onClick={() => uninstall.mutate(undefined, { onSuccess: onDone })}
          >
            {uninstall.isPending ? 'Uninstalling…' : `Uninstall ${title}`}
          </button>
        </Modal.Footer>
      </Modal>
    </>
  );
}
