import { changePasswordBody, type ChangePasswordResponse } from '@atrium/contracts/auth';
import { passwordConfirmationField, passwordsMatch } from '@atrium/contracts/credentials';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm } from 'react-hook-form';
import { Link } from 'react-router';
import type { z } from 'zod';
import { NewPasswordFields } from '../../../components/new-password-fields.tsx';
import type { ApiError } from '../../../lib/api-client.ts';
import { paths } from '../../../lib/paths.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { useAppPasswords } from '../../mail/api/app-passwords.ts';
import { useChangePassword } from '../api/profile.ts';
import { CurrentPasswordField } from './current-password-field.tsx';
import { ErrorAlert } from './error-alert.tsx';

const formSchema = changePasswordBody
  .extend({ confirmation: passwordConfirmationField })
  .superRefine(passwordsMatch('newPassword', 'confirmation'));
type FormValues = z.infer<typeof formSchema>;

/**
 * Change password with the current one; the server signs out every other session and ends every
 * app password (Google's rule: whoever knew the old password may have made one). The form names
 * the devices that will stop syncing, and the answer the ones that did (issue 42 item 3).
 */
export function ChangePasswordForm() {
  const change = useChangePassword();
  // Oldest first, the order the answer names the ones that ended.
  const devices = (useAppPasswords().data ?? []).toSorted((a, b) => a.createdAt.localeCompare(b.createdAt));
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [done, setDone] = useState<ChangePasswordResponse | null>(null);
  const { register, handleSubmit, setError, reset, formState } = useForm<FormValues>({
    resolver: zodResolver(formSchema),
    defaultValues: { currentPassword: '', newPassword: '', confirmation: '' },
  });
  const { errors, isSubmitting } = formState;

  const onSubmit = handleSubmit(async ({ currentPassword, newPassword }) => {
    setFailure(null);
    setDone(null);
    try {
      const answer = await change.mutateAsync({ currentPassword, newPassword });
      reset();
      setDone(answer);
    } catch (error) {
      setFailure(applyServerErrors(error, setError, ['currentPassword', 'newPassword']));
    }
  });

  return (
    <Form noValidate onSubmit={onSubmit}>
      {done ? (
        <Alert variant="success" dismissible onClose={() => setDone(null)} data-testid="password-changed">
          <p className={done.disconnectedDevices.length > 0 ? 'mb-2' : 'mb-0'}>{done.message}</p>
          {done.disconnectedDevices.length > 0 ? (
            <Link to={paths.profileDevices()} className="alert-link">
              Set up a device again
            </Link>
          ) : null}
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
      {devices.length > 0 ? (
        <p className="small text-body-secondary" id="profile-password-devices" data-testid="password-devices">
          These devices will stop syncing until you set them up again:{' '}
          {devices.map((device) => device.name).join(', ')}
        </p>
      ) : null}
      <Button
        type="submit"
        disabled={isSubmitting}
        aria-describedby={devices.length > 0 ? 'profile-password-devices' : undefined}
      >
        {isSubmitting ? 'Saving…' : 'Change password'}
      </Button>
    </Form>
  );
}
