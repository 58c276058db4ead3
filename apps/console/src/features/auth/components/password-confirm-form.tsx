import type { CurrentPasswordBody } from '@atrium/contracts/authenticator';
import { currentPasswordBody } from '@atrium/contracts/authenticator';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm } from 'react-hook-form';
import type { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import './authenticator.css';
import { CurrentPasswordField } from './current-password-field.tsx';
import { ErrorAlert } from './error-alert.tsx';

/** Asks for the current password before a change to the account's sign-in factors. */
export function PasswordConfirmForm({
  id,
  intro,
  submitLabel,
  pendingLabel,
  variant = 'primary',
  onSubmit,
  onCancel,
}: {
  id: string;
  intro: string;
  submitLabel: string;
  pendingLabel: string;
  variant?: 'primary' | 'danger';
  onSubmit: (body: CurrentPasswordBody) => Promise<unknown>;
  onCancel: () => void;
}) {
  const [failure, setFailure] = useState<ApiError | null>(null);
  const { register, handleSubmit, setError, formState } = useForm<CurrentPasswordBody>({
    resolver: zodResolver(currentPasswordBody),
    defaultValues: { currentPassword: '' },
  });
  const { errors, isSubmitting } = formState;

  const submit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      await onSubmit(values);
    } catch (error) {
      setFailure(applyServerErrors(error, setError, ['currentPassword']));
    }
  });

  return (
    <Form noValidate onSubmit={submit} className="mt-3 atrium-narrow-form">
      <p className="small mb-2">{intro}</p>
      <ErrorAlert error={failure} onClose={() => setFailure(null)} />
      <CurrentPasswordField
        controlId={id}
        registration={register('currentPassword')}
        error={errors.currentPassword?.message}
        autoFocus
      />
      <div className="d-flex flex-wrap gap-2">
        <Button type="submit" variant={variant} size="sm" disabled={isSubmitting}>
          {isSubmitting ? pendingLabel : submitLabel}
        </Button>
        <Button variant="outline-secondary" size="sm" onClick={onCancel} disabled={isSubmitting}>
          Cancel
        </Button>
      </div>
    </Form>
  );
}
