import type { MailMigrationJob } from '@atrium/contracts/mail-migration';
import { useId, useState } from 'react';
import Form from 'react-bootstrap/Form';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { useRerunMailMigration } from '../api/mail-migration.ts';

/** "Copy new mail": the old provider's password is asked again (Atrium never keeps it). */
export function RerunDialog({ job, onClose }: { job: MailMigrationJob | null; onClose: () => void }) {
  const rerun = useRerunMailMigration();
  const [password, setPassword] = useState('');
  const id = useId();
  const close = () => {
    setPassword('');
    rerun.reset();
    onClose();
  };
  return (
    <ConfirmDialog
      show={job !== null}
      title={`Copy new mail into ${job?.email ?? ''}?`}
      confirmLabel="Copy new mail"
      pendingLabel="Starting…"
      variant="primary"
      pending={rerun.isPending}
      error={rerun.error}
      errorTitle="The migration did not start"
      canConfirm={password.length > 0}
      onConfirm={() => job && rerun.mutate({ id: job.id, password }, { onSuccess: close })}
      onCancel={close}
    >
      <p>
        Only messages that arrived at {job?.source.host} since the last run are copied. Enter the password of{' '}
        {job?.source.login} there again: it was erased when the last run ended.
      </p>
      <Form.Group controlId={id}>
        <Form.Label>Password or app password</Form.Label>
        <Form.Control
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
      </Form.Group>
    </ConfirmDialog>
  );
}
