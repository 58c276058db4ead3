import { passwordResetCompleteBody } from '@atrium/contracts/auth';
import { passwordConfirmationField, passwordsMatch } from '@atrium/contracts/credentials';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { CodeField } from '../../../components/code-field.tsx';
import { ResendCodeButton } from '../../../components/resend-code-button.tsx';
import { NewPasswordFields } from '../../../components/new-password-fields.tsx';
import type { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { useCodeResend } from '../../../lib/use-code-resend.ts';
import { useCompletePasswordReset, useStartPasswordReset } from '../api/password-reset.ts';
import { ErrorAlert } from './error-alert.tsx';

const formSchema = passwordResetCompleteBody
  .pick({ code: true, password: true })
  .extend({ confirmation: passwordConfirmationField })
  .superRefine(passwordsMatch('password', 'confirmation'));
type FormValues = z.infer<typeof formSchema>;

/** Forgot password, step 2: the e-mailed code and the new password. */
export function ResetCompleteStep({
  email,
  resendAvailableAt,
  onResent,
  onDone,
}: {
  email: string;
  resendAvailableAt: string;
  onResent: (resendAvailableAt: string) => void;
  onDone: (message: string) => void;
}) {
  const complete = useCompletePasswordReset();
  const resend = useStartPasswordReset();
  const [failure, setFailure] = useState<ApiError | null>(null);
  const { resend: onResend } = useCodeResend(
    async () => onResent((await resend.mutateAsync({ email })).resendAvailableAt),
    setFailure,
  );
  const { register, handleSubmit, setError, formState } = useForm<FormValues>({
    resolver: zodResolver(formSchema),
    defaultValues: { code: '', password: '', confirmation: '' },
  });
  const { errors, isSubmitting } = formState;

  const onSubmit = handleSubmit(async ({ code, password }) => {
    setFailure(null);
    try {
      const { message } = await complete.mutateAsync({ email, code, password });
      onDone(message);
    } catch (error) {
      setFailure(applyServerErrors(error, setError, ['code', 'password']));
    }
  });

  return (
    <Form noValidate onSubmit={onSubmit} className="text-start">
      <Alert variant="info" className="small">
        <p className="mb-2">
          If an account exists for <strong>{email}</strong>, we sent a code to it. It works for 10 minutes.
        </p>
        {/* The same for every address (no hint of which have accounts): a browser the account never
            signed in with may get no code while others' requests use up the hour, and their
            messages came to the owner with links that work anywhere (issue 38). */}
        <p className="mb-0">
          The e-mail also has a link that works in any browser. If a reset e-mail already reached you in the
          last hour, its link works too.
        </p>
      </Alert>
      <ErrorAlert error={failure} onClose={() => setFailure(null)} />
      <CodeField
        controlId="reset-code"
        label="Code from the e-mail"
        registration={register('code')}
        error={errors.code?.message}
      />
      <NewPasswordFields
        idPrefix="reset"
        password={{ registration: register('password'), error: errors.password?.message }}
        confirmation={{ registration: register('confirmation'), error: errors.confirmation?.message }}
      />
      <div className="mb-4 small">
        <ResendCodeButton availableAt={resendAvailableAt} sending={resend.isPending} onClick={onResend} />
      </div>
      <Button type="submit" className="w-100" disabled={isSubmitting}>
        {isSubmitting ? 'Saving…' : 'Set new password'}
      </Button>
    </Form>
  );
}
