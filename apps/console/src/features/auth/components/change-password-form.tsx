import { changePasswordBody } from '@atrium/contracts/auth';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import type { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { useChangePassword } from '../api/profile.ts';
import { ErrorAlert } from './error-alert.tsx';

const formSchema = changePasswordBody
  .extend({ confirmation: z.string().min(1, 'Enter the new password again') })
  .refine((v) => v.newPassword === v.confirmation, {
    path: ['confirmation'],
    message: 'The passwords do not match',
  });
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
      <Form.Group className="mb-3" controlId="profile-current-password">
        <Form.Label>Current password</Form.Label>
        <Form.Control
          {...register('currentPassword')}
          type="password"
          autoComplete="current-password"
          isInvalid={!!errors.currentPassword}
        />
        <Form.Control.Feedback type="invalid">{errors.currentPassword?.message}</Form.Control.Feedback>
      </Form.Group>
      <Form.Group className="mb-3" controlId="profile-new-password">
        <Form.Label>New password</Form.Label>
        <Form.Control
          {...register('newPassword')}
          type="password"
          autoComplete="new-password"
          isInvalid={!!errors.newPassword}
        />
        <Form.Text>At least 8 characters. Common passwords are refused.</Form.Text>
        <Form.Control.Feedback type="invalid">{errors.newPassword?.message}</Form.Control.Feedback>
      </Form.Group>
      <Form.Group className="mb-3" controlId="profile-confirm-password">
        <Form.Label>New password again</Form.Label>
        <Form.Control
          {...register('confirmation')}
          type="password"
          autoComplete="new-password"
          isInvalid={!!errors.confirmation}
        />
        <Form.Control.Feedback type="invalid">{errors.confirmation?.message}</Form.Control.Feedback>
      </Form.Group>
      <Button type="submit" disabled={isSubmitting}>
        {isSubmitting ? 'Saving…' : 'Change password'}
      </Button>
    </Form>
  );
}
