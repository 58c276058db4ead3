import { useId, type ReactNode } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Modal from 'react-bootstrap/Modal';
import Spinner from 'react-bootstrap/Spinner';
import './confirm-dialog.css';

export interface ConfirmDialogProps {
  show: boolean;
  /** A question naming the thing, e.g. "Suspend Bob Lee?"; it labels the dialog. */
  title: string;
  /** What will happen, in plain words with the real names; it describes the dialog. */
  children: ReactNode;
  /** A verb, e.g. "Suspend" or "Rotate secret"; never "OK". */
  confirmLabel: string;
  /** Shown on the confirm button while the action runs, e.g. "Suspending…". */
  pendingLabel: string;
  /** Red for what cannot be taken back (the default). */
  variant?: 'danger' | 'primary';
  pending: boolean;
  /** The server's refusal of the last attempt; the dialog stays open and shows it. */
  error: Error | null;
  /** The heading above `error`, e.g. "The user was not suspended". */
  errorTitle: string;
  /** False while the action is not possible (nothing to confirm yet): only Cancel is offered. */
  canConfirm?: boolean;
  cancelLabel?: string;
  onConfirm: () => void;
  /** Cancel, Escape, the close icon and a click outside all end here. */
  onCancel: () => void;
}

/**
 * The one confirmation for actions that cannot be taken back. Modal gives role="dialog",
 * aria-modal, the focus trap, Escape, and focus back on the trigger when it closes; Cancel takes
 * the focus first, so Enter on an unread dialog does no harm.
 *
 * It fades in with CSS alone (confirm-dialog.css) and closes at once: react-bootstrap's own fade
 * ends on a `transitionend` that any button inside may send first, and then never ends, leaving
 * an invisible dialog over the page (react-bootstrap issue 6153).
 */
export function ConfirmDialog({
  show,
  title,
  children,
  confirmLabel,
  pendingLabel,
  variant = 'danger',
  pending,
  error,
  errorTitle,
  canConfirm = true,
  cancelLabel = 'Cancel',
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const id = useId();
  const titleId = `${id}-title`;
  const textId = `${id}-text`;
  return (
    <Modal
      show={show}
      onHide={onCancel}
      centered
      animation={false}
      className="atrium-confirm"
      backdropClassName="atrium-confirm-backdrop"
      aria-labelledby={titleId}
      aria-describedby={textId}
    >
      <Modal.Header closeButton closeLabel="Close">
        <Modal.Title id={titleId} as="h2" className="h5 text-break">
          {title}
        </Modal.Title>
      </Modal.Header>
      <Modal.Body>
        <div id={textId} className="text-break">
          {children}
        </div>
        {error ? (
          <Alert variant="danger" className="mt-3 mb-0" role="alert">
            <Alert.Heading as="h3" className="h6">
              {errorTitle}
            </Alert.Heading>
            <p className="mb-0">{error.message}</p>
          </Alert>
        ) : null}
      </Modal.Body>
      <Modal.Footer>
        <Button variant="outline-secondary" onClick={onCancel} autoFocus>
          {cancelLabel}
        </Button>
        {canConfirm ? (
          <Button
            variant={variant}
            disabled={pending}
            aria-busy={pending || undefined}
            onClick={onConfirm}
            className="d-inline-flex align-items-center justify-content-center gap-2"
          >
            {pending ? <Spinner animation="border" size="sm" aria-hidden="true" /> : null}
            {pending ? pendingLabel : confirmLabel}
          </Button>
        ) : null}
      </Modal.Footer>
    </Modal>
  );
}
