import { passwordResetLinkBody } from '@atrium/contracts/auth';
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
import { useCompletePasswordResetByLink } from '../api/password-reset.ts';
import { ErrorAlert } from './error-alert.tsx';

const formSchema = passwordResetLinkBody
  .pick({ password: true })
  .extend({ confirmation: passwordConfirmationField })
  .superRefine(passwordsMatch('password', 'confirmation'));
type FormValues = z.infer<typeof formSchema>;

/** A link that is used, made up or too old: the server's words, and the way to a new code. */
const isLinkError = (error: ApiError | null) =>
  error?.code === 'reset_link_invalid' || error?.code === 'reset_link_expired';

/**
 * Forgot password by the link of a reset e-mail (`/forgot-password?token=`): the new password
 * straight away, in any browser. A link that cannot be used offers to ask for a new code.
 */
export function ResetLinkStep({
  token,
  onDone,
  onAskAgain,
}: {
  token: string;
  onDone: (message: string) => void;
  onAskAgain: () => void;
}) {
  const complete = useCompletePasswordResetByLink();
  const [failure, setFailure] = useState<ApiError | null>(null);
  const { register, handleSubmit, setError, formState } = useForm<FormValues>({
    resolver: zodResolver(formSchema),
    defaultValues: { password: '', confirmation: '' },
  });
  const { errors, isSubmitting } = formState;

  const onSubmit = handleSubmit(async ({ password }) => {
    setFailure(null);
    try {
      const { message } = await complete.mutateAsync({ token, password });
      onDone(message);
    } catch (error) {
      setFailure(applyServerErrors(error, setError, ['password']));
    }
  });

  if (isLinkError(failure)) {
    return (
      <Alert variant="warning" className="text-start">
        <Alert.Heading as="h2" className="h6">
          This link cannot be used
        </Alert.Heading>
        <p>{failure!.message}</p>
        <Button size="sm" onClick={onAskAgain}>
          Ask for a new code
        </Button>
      </Alert>
    );
  }
  return (
    <Form noValidate onSubmit={onSubmit} className="text-start">
      <h2 className="h6">Choose a new password</h2>
      <p className="text-body-secondary small">
        You opened the link from your reset e-mail. It works once; every other reset link and code stops
        working when your new password is set.
      </p>
      <ErrorAlert error={failure} onClose={() => setFailure(null)} />
      <NewPasswordFields
        idPrefix="reset-link"
        password={{ registration: register('password'), error: errors.password?.message }}
        confirmation={{ registration: register('confirmation'), error: errors.confirmation?.message }}
      />
      <Button type="submit" className="w-100" disabled={isSubmitting}>
        {isSubmitting ? 'Saving…' : 'Set new password'}
      </Button>
    </Form>
  );
}
