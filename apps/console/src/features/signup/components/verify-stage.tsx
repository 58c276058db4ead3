import { signupVerifyBodySchema, type SignupState } from '@atrium/contracts/signup';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm } from 'react-hook-form';
import { CodeField } from '../../../components/code-field.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { useCountdown } from '../../../lib/use-countdown.ts';
import { useChangeStage, useResendCode, useVerifyCode } from '../api/signup-state.ts';
import { FormAlert } from './form-alert.tsx';

/** Stage 3: the 6-digit code; re-sending waits the seed spec's ReSend (60 s), timed by the server. */
export function VerifyStage({ state }: { state: SignupState }) {
  const verify = useVerifyCode();
  const resend = useResendCode();
  const changeStage = useChangeStage();
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [resent, setResent] = useState(false);
  const wait = useCountdown(state.resendAvailableAt);
  const { register, handleSubmit, setError, formState } = useForm<{ code: string }>({
    resolver: zodResolver(signupVerifyBodySchema),
    defaultValues: { code: '' },
  });
  const { errors, isSubmitting } = formState;

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      await verify.mutateAsync(values);
    } catch (error) {
      setFailure(applyServerErrors(error, setError, ['code']));
    }
  });

  async function onResend() {
    setFailure(null);
    setResent(false);
    try {
      await resend.mutateAsync({});
      setResent(true);
    } catch (error) {
      setFailure(
        error instanceof ApiError ? error : new ApiError(0, { code: 'error', message: String(error) }),
      );
    }
  }

  return (
    <Form noValidate onSubmit={onSubmit}>
      <FormAlert heading="That did not work" error={failure} onClose={() => setFailure(null)} />
      <p className="text-body-secondary small">
        We sent a 6-digit code to <strong>{state.email}</strong>. It works for 10 minutes.
      </p>
      <CodeField
        controlId="signup-code"
        label="Verification code"
        registration={register('code')}
        error={errors.code?.message}
      />
      <div className="d-flex flex-wrap align-items-center gap-2 mb-4 small">
        <Button
          variant="link"
          size="sm"
          className="p-0"
          onClick={onResend}
          disabled={wait > 0 || resend.isPending}
        >
          {wait > 0 ? `Send a new code in ${wait} s` : 'Send a new code'}
        </Button>
        <span aria-live="polite" className="text-success">
          {resent ? 'A new code is on its way.' : ''}
        </span>
        <Button
          variant="link"
          size="sm"
          className="p-0 ms-auto"
          onClick={() => changeStage.mutate({ stage: 'email' })}
        >
          Use another address
        </Button>
      </div>
      <Button type="submit" className="w-100" disabled={isSubmitting}>
        {isSubmitting ? 'Checking…' : 'Verify'}
      </Button>
    </Form>
  );
}
