import { createAppPasswordBody, type CreateAppPasswordBody } from '@atrium/contracts/app-passwords';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import { useForm } from 'react-hook-form';
import type { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { ErrorAlert } from '../../auth/components/error-alert.tsx';
import { useCreateAppPassword } from '../api/app-passwords.ts';

/** Names a new app password; the password itself comes back once, for `onCreated` to show. */
export function NewAppPasswordForm({ onCreated }: { onCreated: (name: string, password: string) => void }) {
  const create = useCreateAppPassword();
  const [failure, setFailure] = useState<ApiError | null>(null);
  const { register, handleSubmit, setError, reset, formState } = useForm<CreateAppPasswordBody>({
    resolver: zodResolver(createAppPasswordBody),
    defaultValues: { name: '' },
  });
  const { errors, isSubmitting } = formState;

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      const created = await create.mutateAsync(values);
      reset();
      onCreated(created.appPassword.name, created.password);
    } catch (error) {
      setFailure(applyServerErrors(error, setError, ['name']));
    }
  });

  return (
    <Form noValidate onSubmit={onSubmit} className="mb-3 atrium-form-narrow">
      <ErrorAlert error={failure} onClose={() => setFailure(null)} />
      <Form.Label htmlFor="app-password-name">New app password</Form.Label>
      <InputGroup hasValidation>
        <Form.Control
          id="app-password-name"
          {...register('name')}
          placeholder="e.g. Phone mail app"
          autoComplete="off"
          isInvalid={!!errors.name}
          aria-describedby="app-password-name-help"
        />
        <Button type="submit" disabled={isSubmitting}>
          {isSubmitting ? 'Creating…' : 'Create'}
        </Button>
        <Form.Control.Feedback type="invalid">{errors.name?.message}</Form.Control.Feedback>
      </InputGroup>
      <Form.Text id="app-password-name-help">
        A name to tell it apart later: the device or app it is for.
      </Form.Text>
    </Form>
  );
}
