import { setPasswordSchema, type SetPasswordInput, type UserDetail } from '@atrium/contracts/users';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm } from 'react-hook-form';
import { SectionCard } from '../../../components/section-card.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { userActions, useUserAction } from '../api/user-actions.ts';
import { ActionError } from './action-error.tsx';
import { formatDateTime } from './format.ts';

/**
 * Reset password: set a new one now (the user's sessions end), or e-mail a set-password link
 * (an invitation again for someone who never set a password).
 */
export function UserPasswordCard({ user }: { user: UserDetail }) {
  const [notice, setNotice] = useState<string | null>(null);
  const setPassword = useUserAction(
    user.id,
    (body: SetPasswordInput) => userActions.setPassword(user.id, body),
    {
      onSuccess: () => setNotice('The new password is set. The user was signed out everywhere.'),
    },
  );
  const sendLink = useUserAction(user.id, () => userActions.sendPasswordLink(user.id), {
    onSuccess: (result) =>
      setNotice(
        result.mailSent
          ? `An e-mail with a set-password link was sent to ${result.sentTo}.`
          : `The link was created, but the e-mail to ${result.sentTo} could not be sent yet. Atrium keeps trying, and it will arrive once the mail server answers.`,
      ),
  });
  const { register, handleSubmit, setError, reset, formState } = useForm<SetPasswordInput>({
    resolver: zodResolver(setPasswordSchema),
    defaultValues: { password: '' },
  });
  const submit = handleSubmit(async (values) => {
    setNotice(null);
    try {
      await setPassword.mutateAsync(values);
      reset();
    } catch (error) {
      if (error instanceof ApiError && error.fields?.password)
        setError('password', { message: error.fields.password });
    }
  });
  const invited = user.status === 'invited';
  const blocked = user.isSelf || user.status === 'suspended';
  const formError =
    setPassword.error instanceof ApiError && setPassword.error.fields ? null : setPassword.error;

  return (
    <SectionCard title={invited ? 'Invitation and password' : 'Reset password'} className="mb-4">
      {notice ? (
        <Alert variant="success" dismissible onClose={() => setNotice(null)}>
          {notice}
        </Alert>
      ) : null}
      <ActionError title="The password could not be set" error={formError} />
      <ActionError title="The e-mail could not be sent" error={sendLink.error} />
      {user.isSelf ? (
        <p className="text-body-secondary">Change your own password on your profile page.</p>
      ) : null}
      {user.status === 'suspended' ? (
        <p className="text-body-secondary">Reactivate this user before changing their password.</p>
      ) : null}
      {user.pendingLink ? (
        <p className="small">
          {user.pendingLink.purpose === 'invite' ? 'An invitation' : 'A password reset'} link is waiting to be
          used until {formatDateTime(user.pendingLink.expiresAt)}.
        </p>
      ) : null}
      <Form noValidate onSubmit={submit} className="mb-3">
        <Form.Group controlId="user-new-password" className="mb-2">
          <Form.Label>New password</Form.Label>
          <Form.Control
            type="password"
            autoComplete="new-password"
            disabled={blocked}
            {...register('password')}
            isInvalid={!!formState.errors.password}
          />
          <Form.Control.Feedback type="invalid">{formState.errors.password?.message}</Form.Control.Feedback>
        </Form.Group>
        <Button
          type="submit"
          variant="outline-primary"
          size="sm"
          disabled={blocked || formState.isSubmitting}
        >
          Set password
        </Button>
      </Form>
      <Button
        variant="outline-secondary"
        size="sm"
        disabled={blocked || sendLink.isPending}
        onClick={() => {
          setNotice(null);
          sendLink.mutate(undefined);
        }}
      >
        {invited ? 'Send the invitation again' : 'E-mail a password reset link'}
      </Button>
    </SectionCard>
  );
}
