import { passkeyName } from '@atrium/contracts/passkeys';
import { currentPasswordBody } from '@atrium/contracts/authenticator';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { useAddPasskey } from '../api/passkeys.ts';
import './authenticator.css';
import { CurrentPasswordField } from './current-password-field.tsx';
import { ErrorAlert } from './error-alert.tsx';
import { passkeyError } from './passkey-error.ts';

const addPasskeyForm = currentPasswordBody.extend({ name: passkeyName });
type AddPasskeyForm = z.infer<typeof addPasskeyForm>;

/** A name to know the passkey by, and the password again; then the browser makes the passkey. */
export function PasskeyAddForm({
  onAdded,
  onCancel,
}: {
  onAdded: (recoveryCodes: string[] | null) => void;
  onCancel: () => void;
}) {
  const add = useAddPasskey();
  const [failure, setFailure] = useState<ApiError | null>(null);
  const { register, handleSubmit, setError, formState } = useForm<AddPasskeyForm>({
    resolver: zodResolver(addPasskeyForm),
    defaultValues: { name: '', currentPassword: '' },
  });
  const { errors, isSubmitting } = formState;

  const submit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      const { recoveryCodes } = await add.mutateAsync(values);
      onAdded(recoveryCodes);
    } catch (error) {
      // The browser's refusals are not API errors: they get words of their own.
      setFailure(
        error instanceof ApiError
          ? applyServerErrors(error, setError, ['name', 'currentPassword'])
          : passkeyError(error),
      );
    }
  });

  return (
    <Form noValidate onSubmit={submit} className="mt-3 atrium-narrow-form">
      <ErrorAlert error={failure} onClose={() => setFailure(null)} />
      <Form.Group className="mb-3" controlId="passkey-name">
        <Form.Label>Name</Form.Label>
        <Form.Control
          {...register('name')}
          placeholder="Work laptop"
          autoComplete="off"
          isInvalid={!!errors.name}
          autoFocus
        />
        <Form.Text>So you can tell your passkeys apart.</Form.Text>
        <Form.Control.Feedback type="invalid">{errors.name?.message}</Form.Control.Feedback>
      </Form.Group>
      <CurrentPasswordField
        controlId="passkey-password"
        registration={register('currentPassword')}
        error={errors.currentPassword?.message}
      />
      <div className="d-flex flex-wrap gap-2">
        <Button type="submit" size="sm" disabled={isSubmitting}>
          {isSubmitting ? 'Waiting for your passkey…' : 'Create the passkey'}
        </Button>
        <Button variant="outline-secondary" size="sm" onClick={onCancel} disabled={isSubmitting}>
          Cancel
        </Button>
      </div>
    </Form>
  );
}
