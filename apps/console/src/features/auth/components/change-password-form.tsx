import { changePasswordBody } from '@atrium/contracts/auth';
import { passwordConfirmationField, passwordsMatch } from '@atrium/contracts/credentials';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { NewPasswordFields } from '../../../components/new-password-fields.tsx';
import type { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { useChangePassword } from '../api/profile.ts';
import { CurrentPasswordField } from './current-password-field.tsx';
import { ErrorAlert } from './error-alert.tsx';

const formSchema = changePasswordBody
  .extend({ confirmation: passwordConfirmationField })
  .superRefine(passwordsMatch('newPassword', 'confirmation'));
type FormValues = z.infer<typeof formSchema>;

/** Change password with the current one; the server signs out every other session. */
export function ChangePasswordForm() {
  const change = useChangePassword();
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const { register, handleSubmit, setError, reset, formState } = useForm<FormValues>({
    resolver: zodResolver(formSchema),
    defaultValues: { currentPassword: '', newPassword: '', confirmation: '' },
  });
  const { errors, isSubmitting } = formState;

  const onSubmit = handleSubmit(async ({ currentPassword, newPassword }) => {
    setFailure(null);
    setDone(null);
    try {
      const { message } = await change.mutateAsync({ currentPassword, newPassword });
      reset();
      setDone(message);
    } catch (error) {
      setFailure(applyServerErrors(error, setError, ['currentPassword', 'newPassword']));
    }
  });

  return (
    <Form noValidate onSubmit={onSubmit}>
      {done ? (
        <Alert variant="success" dismissible onClose={() => setDone(null)}>
          {done}
        </Alert>
      ) : null}
      <ErrorAlert error={failure} onClose={() => setFailure(null)} />
      <CurrentPasswordField
        controlId="profile-current-password"
        registration={register('currentPassword')}
        error={errors.currentPassword?.message}
      />
      <NewPasswordFields
        idPrefix="profile"
        password={{ registration: register('newPassword'), error: errors.newPassword?.message }}
        confirmation={{ registration: register('confirmation'), error: errors.confirmation?.message }}
      />
      <Button type="submit" disabled={isSubmitting}>
        {isSubmitting ? 'Saving…' : 'Change password'}
      </Button>
    </Form>
  );
}
