import {
  acceptInvitationSchema,
  type AcceptInvitationInput,
  type AcceptedInvitation,
} from '@atrium/contracts/invitations';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm, type FieldPath } from 'react-hook-form';
import { NewPasswordFields } from '../../../components/new-password-fields.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { useAcceptSetPasswordLink } from '../api/set-password-link.ts';

/** Password and confirmation for a set-password link; the link is used up on success. */
export function SetPasswordForm({
  token,
  email,
  onDone,
}: {
  token: string;
  email: string;
  onDone: (accepted: AcceptedInvitation) => void;
}) {
  const accept = useAcceptSetPasswordLink(token);
  const [failure, setFailure] = useState<string | null>(null);
  const { register, handleSubmit, setError, formState } = useForm<AcceptInvitationInput>({
    resolver: zodResolver(acceptInvitationSchema),
    defaultValues: { password: '', confirmPassword: '' },
  });
  const { errors, isSubmitting } = formState;
  const submit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      onDone(await accept.mutateAsync(values));
    } catch (error) {
      if (error instanceof ApiError && error.fields && Object.keys(error.fields).length > 0) {
        for (const [field, message] of Object.entries(error.fields)) {
          setError(field as FieldPath<AcceptInvitationInput>, { message }, { shouldFocus: true });
        }
      } else {
        setFailure(error instanceof Error ? error.message : String(error));
      }
    }
  });
  return (
    <Form noValidate onSubmit={submit} className="text-start">
      {failure ? (
        <Alert variant="danger">
          <Alert.Heading as="h2" className="h6">
            The password could not be set
          </Alert.Heading>
          <p className="mb-0">{failure}</p>
        </Alert>
      ) : null}
      {/* Lets password managers file the new password under the right account. */}
      <input type="email" name="username" value={email} autoComplete="username" readOnly hidden />
      <NewPasswordFields
        idPrefix="set"
        password={{ registration: register('password'), error: errors.password?.message }}
        confirmation={{ registration: register('confirmPassword'), error: errors.confirmPassword?.message }}
      />
      <Button type="submit" className="w-100" disabled={isSubmitting}>
        Set password
      </Button>
    </Form>
  );
}
