import { signupVerifyBodySchema, type SignupState } from '@atrium/contracts/signup';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm } from 'react-hook-form';
import { CodeField } from '../../../components/code-field.tsx';
import { ResendCodeButton } from '../../../components/resend-code-button.tsx';
import type { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { useCodeResend } from '../../../lib/use-code-resend.ts';
import { useChangeStage, useResendCode, useVerifyCode } from '../api/signup-state.ts';
import { FormAlert } from './form-alert.tsx';

/** Stage 3: the 6-digit code; re-sending waits the seed spec's ReSend (60 s), timed by the server. */
export function VerifyStage({ state }: { state: SignupState }) {
  const verify = useVerifyCode();
  const resend = useResendCode();
  const changeStage = useChangeStage();
  const [failure, setFailure] = useState<ApiError | null>(null);
  const { resent, resend: onResend } = useCodeResend(() => resend.mutateAsync({}), setFailure);
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
        <ResendCodeButton
          availableAt={state.resendAvailableAt}
          sending={resend.isPending}
          onClick={onResend}
          resent={resent}
        />
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
