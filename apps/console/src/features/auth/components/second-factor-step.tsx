import type { SecondFactor } from '@atrium/contracts/authenticator';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { CodeField } from '../../../components/code-field.tsx';
import { lazyZodResolver } from '../../../lib/lazy-zod-resolver.ts';
import { useSubmitSecondFactor } from '../api/interaction.ts';
import { ErrorAlert } from './error-alert.tsx';
import { OtherWays } from './other-ways.tsx';
import { TrustBrowserCheck } from './trust-browser-check.tsx';
import { useSignInCodeForm } from './use-sign-in-code-form.ts';

const totpResolver = lazyZodResolver(
  async () => (await import('@atrium/contracts/authenticator')).signInTotpBody,
);
const recoveryResolver = lazyZodResolver(
  async () => (await import('@atrium/contracts/authenticator')).signInRecoveryBody,
);

/**
 * Sign-in step 2 for an account with an authenticator app: the app's 6-digit code, or one of the
 * recovery codes; "Use another way" offers the others this sign-in allows.
 */
export function SecondFactorStep({
  uid,
  step,
  email,
  otherWays,
  canTrustBrowser = false,
  onUseAnotherAccount,
}: {
  uid: string;
  step: 'totp' | 'recovery';
  email: string;
  otherWays: SecondFactor[];
  canTrustBrowser?: boolean;
  onUseAnotherAccount: () => void;
}) {
  const submit = useSubmitSecondFactor(uid, step);
  const { register, formState, failure, setFailure, onSubmit } = useSignInCodeForm(
    submit,
    step === 'totp' ? totpResolver : recoveryResolver,
  );
  const { errors, isSubmitting, isSubmitSuccessful } = formState;

  return (
    <Form noValidate onSubmit={onSubmit} className="text-start">
      <ErrorAlert error={failure} onClose={() => setFailure(null)} />
      <p className="text-body-secondary small">
        {step === 'totp' ? (
          <>
            Enter the 6-digit code your authenticator app shows for{' '}
            <strong className="text-break">{email}</strong>.
          </>
        ) : (
          <>
            Enter one of the recovery codes you saved for <strong className="text-break">{email}</strong>.
            Each works once.
          </>
        )}
      </p>
      {step === 'totp' ? (
        <CodeField
          controlId="login-totp"
          label="Authenticator code"
          registration={register('code')}
          error={errors.code?.message}
        />
      ) : (
        <Form.Group className="mb-3" controlId="login-recovery">
          <Form.Label>Recovery code</Form.Label>
          <Form.Control
            {...register('code')}
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            className="font-monospace"
            isInvalid={!!errors.code}
            autoFocus
          />
          <Form.Control.Feedback type="invalid">{errors.code?.message}</Form.Control.Feedback>
        </Form.Group>
      )}
      {canTrustBrowser ? <TrustBrowserCheck registration={register('trustBrowser')} /> : null}
      <div className="d-flex mb-4 small">
        <Button variant="link" size="sm" className="p-0 ms-auto" onClick={onUseAnotherAccount}>
          Use another account
        </Button>
      </div>
      <Button type="submit" className="w-100" disabled={isSubmitting || isSubmitSuccessful}>
        {isSubmitting || isSubmitSuccessful ? 'Signing in…' : 'Sign in'}
      </Button>
      <OtherWays key={step} uid={uid} ways={otherWays} />
    </Form>
  );
}
