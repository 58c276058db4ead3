import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { CodeField } from '../../../components/code-field.tsx';
import { ResendCodeButton } from '../../../components/resend-code-button.tsx';
import { lazyZodResolver } from '../../../lib/lazy-zod-resolver.ts';
import { useCodeResend } from '../../../lib/use-code-resend.ts';
import { useResendCode, useSubmitCode } from '../api/interaction.ts';
import type { SecondFactor } from '@atrium/contracts/authenticator';
import { ErrorAlert } from './error-alert.tsx';
import { OtherWays } from './other-ways.tsx';
import { TrustBrowserCheck } from './trust-browser-check.tsx';
import { useSignInCodeForm } from './use-sign-in-code-form.ts';

const signInCodeBodyResolver = lazyZodResolver(
  async () => (await import('@atrium/contracts/auth')).signInCodeBody,
);

/**
 * Sign-in step 2: the 6-digit code e-mailed to the user; a new one after the seed spec's ReSend 60.
 * When the mail server has not taken the e-mail yet (`codeSent` false), the page says so plainly:
 * the message is queued and will arrive, no need to ask again.
 */
export function CodeStep({
  uid,
  email,
  resendAvailableAt,
  codeSent,
  otherWays = [],
  canTrustBrowser = false,
  onUseAnotherAccount,
}: {
  uid: string;
  email: string;
  resendAvailableAt: string;
  codeSent: boolean;
  /** For an account with an authenticator app: the other factors it may use instead. */
  otherWays?: SecondFactor[];
  /** "Trust this browser for 30 days", when the organisation allows it. */
  canTrustBrowser?: boolean;
  onUseAnotherAccount: () => void;
}) {
  const submit = useSubmitCode(uid);
  const resend = useResendCode(uid);
  const { register, formState, failure, setFailure, onSubmit } = useSignInCodeForm(
    submit,
    signInCodeBodyResolver,
  );
  const { resent, resend: onResend } = useCodeResend(() => resend.mutateAsync(), setFailure);
  const { errors, isSubmitting, isSubmitSuccessful } = formState;

  return (
    <Form noValidate onSubmit={onSubmit} className="text-start">
      <ErrorAlert error={failure} onClose={() => setFailure(null)} />
      {codeSent ? (
        <p className="text-body-secondary small">
          We sent a 6-digit code to <strong>{email}</strong>. It works for 10 minutes.
        </p>
      ) : (
        <Alert variant="warning" className="small">
          We could not send the code to <strong>{email}</strong> yet. It will arrive shortly: keep this page
          open and enter the code when it comes.
        </Alert>
      )}
      <CodeField
        controlId="login-code"
        label="Sign-in code"
        registration={register('code')}
        error={errors.code?.message}
      />
      {canTrustBrowser ? <TrustBrowserCheck registration={register('trustBrowser')} /> : null}
      <div className="d-flex flex-wrap align-items-center gap-2 mb-4 small">
        <ResendCodeButton
          availableAt={resendAvailableAt}
          sending={resend.isPending}
          onClick={onResend}
          resent={resent && codeSent}
        />
        <Button variant="link" size="sm" className="p-0 ms-auto" onClick={onUseAnotherAccount}>
          Use another account
        </Button>
      </div>
      <Button type="submit" className="w-100" disabled={isSubmitting || isSubmitSuccessful}>
        {isSubmitting || isSubmitSuccessful ? 'Signing in…' : 'Sign in'}
      </Button>
      <OtherWays uid={uid} ways={otherWays} />
    </Form>
  );
}
