import { signInErrorMessage } from '@atrium/contracts/sign-in-values';
import { LogIn } from 'lucide-react';
import { useEffect, useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useSearchParams } from 'react-router';
import { PublicCard } from '../../components/public-card.tsx';
import { useInteractionState } from '../../features/auth/api/interaction.ts';
import { CodeStep } from '../../features/auth/components/code-step.tsx';
import { EnrolmentStep } from '../../features/auth/components/enrolment-step.tsx';
import { ErrorAlert } from '../../features/auth/components/error-alert.tsx';
import { PasskeyStep } from '../../features/auth/components/passkey-step.tsx';
import { PasswordStep } from '../../features/auth/components/password-step.tsx';
import { SecondFactorStep } from '../../features/auth/components/second-factor-step.tsx';
import { ApiError } from '../../lib/api-client.ts';
import { paths, serverPaths } from '../../lib/paths.ts';

/**
 * The identity provider's sign-in page (docs/sign-in.md): e-mail and password, then the e-mailed
 * code (or, for an account with a passkey or an authenticator app, that), then back to the app that asked. `uid` names the provider's sign-in in progress; without
 * one the console starts its own sign-in.
 */
export default function LoginPage() {
  const [params] = useSearchParams();
  const uid = params.get('uid');
  const error = params.get('error');
  useEffect(() => {
    if (!uid && !error) window.location.replace(serverPaths.ssoStart());
  }, [uid, error]);

  return (
    <PublicCard
      title="Sign in"
      icon={LogIn}
      footer={
        <>
          New to Atrium? <Link to={paths.signup()}>Create an organisation</Link>
        </>
      }
    >
      {uid ? (
        <LoginSteps uid={uid} />
      ) : error ? (
        <Restart heading="Sign-in did not complete" message={signInErrorMessage(error)} />
      ) : (
        <Spinner animation="border" size="sm" role="status" aria-label="Loading" />
      )}
    </PublicCard>
  );
}

function LoginSteps({ uid }: { uid: string }) {
  const state = useInteractionState(uid);
  // "Use another account" goes back to the password step of the same sign-in.
  const [anotherAccount, setAnotherAccount] = useState(false);
  const next = state.data?.stage === 'continue' ? state.data.redirectTo : null;
  useEffect(() => {
    if (next) window.location.assign(next);
  }, [next]);

  if (state.isPending || next)
    return <Spinner animation="border" size="sm" role="status" aria-label="Loading" />;
  if (state.isError) {
    const error =
      state.error instanceof ApiError
        ? state.error
        : new ApiError(0, { code: 'error', message: String(state.error) });
    return error.status === 410 ? (
      <Restart heading="This page has expired" message={error.message} />
    ) : (
      <ErrorAlert error={error} />
    );
  }
  const data = state.data;
  if (data.stage === 'denied') {
    return (
      <Alert variant="warning" className="text-start">
        <Alert.Heading as="h2" className="h6">
          No access
        </Alert.Heading>
        <p className="mb-2">You don&apos;t have access to {data.appName}. Ask your administrator.</p>
        <Link to={paths.application()}>Go to your apps</Link>
      </Alert>
    );
  }
  if (data.stage === 'code' && !anotherAccount) {
    return (
      <CodeStep
        uid={uid}
        email={data.email}
        resendAvailableAt={data.resendAvailableAt}
        codeSent={data.codeSent}
        otherWays={data.otherWays}
        canTrustBrowser={data.canTrustBrowser}
        onUseAnotherAccount={() => setAnotherAccount(true)}
      />
    );
  }
  if (data.stage === 'enrol') return <EnrolmentStep uid={uid} email={data.email} />;
  if (data.stage === 'passkey' && !anotherAccount) {
    return (
      <PasskeyStep
        uid={uid}
        email={data.email}
        otherWays={data.otherWays}
        canTrustBrowser={data.canTrustBrowser}
        onUseAnotherAccount={() => setAnotherAccount(true)}
      />
    );
  }
  if ((data.stage === 'totp' || data.stage === 'recovery') && !anotherAccount) {
    return (
      <SecondFactorStep
        key={data.stage}
        uid={uid}
        step={data.stage}
        email={data.email}
        otherWays={data.otherWays}
        canTrustBrowser={data.canTrustBrowser}
        onUseAnotherAccount={() => setAnotherAccount(true)}
      />
    );
  }
  return (
    <>
      {data.stage === 'password' && data.clientName !== 'Atrium console' ? (
        <p className="text-body-secondary small">to continue to {data.clientName}</p>
      ) : null}
      <PasswordStep uid={uid} onSent={() => setAnotherAccount(false)} />
    </>
  );
}

function Restart({ heading, message }: { heading: string; message: string }) {
  return (
    <Alert variant="warning" className="text-start">
      <Alert.Heading as="h2" className="h6">
        {heading}
      </Alert.Heading>
      <p>{message}</p>
      <a href={serverPaths.ssoStart()} className="btn btn-primary btn-sm">
        Start again
      </a>
    </Alert>
  );
}
