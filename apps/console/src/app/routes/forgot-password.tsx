import { KeyRound } from 'lucide-react';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import { Link, useSearchParams } from 'react-router';
import { PublicCard } from '../../components/public-card.tsx';
import { ResetCompleteStep } from '../../features/auth/components/reset-complete-step.tsx';
import { ResetLinkStep } from '../../features/auth/components/reset-link-step.tsx';
import { ResetRequestStep } from '../../features/auth/components/reset-request-step.tsx';
import { paths, serverPaths } from '../../lib/paths.ts';

type Step =
  | { name: 'email' }
  | { name: 'link'; token: string }
  | { name: 'code'; email: string; resendAvailableAt: string }
  | { name: 'done'; message: string };

/**
 * Forgot password: e-mail → "if an account exists, we sent a code" → code and new password → sign
 * in again. `?token=` (the link of a reset e-mail, any browser): straight to the new password.
 */
export default function ForgotPasswordPage() {
  const [search, setSearch] = useSearchParams();
  const token = search.get('token');
  const [step, setStep] = useState<Step>(token ? { name: 'link', token } : { name: 'email' });
  const askAgain = () => {
    // The link is of no more use: it leaves the address bar and the history entry.
    setSearch({}, { replace: true });
    setStep({ name: 'email' });
  };
  return (
    <PublicCard
      title="Reset your password"
      icon={KeyRound}
      footer={<Link to={paths.login()}>Back to sign in</Link>}
    >
      {step.name === 'link' ? (
        <ResetLinkStep
          token={step.token}
          onDone={(message) => setStep({ name: 'done', message })}
          onAskAgain={askAgain}
        />
      ) : step.name === 'email' ? (
        <ResetRequestStep
          onSent={(email, resendAvailableAt) => setStep({ name: 'code', email, resendAvailableAt })}
        />
      ) : step.name === 'code' ? (
        <ResetCompleteStep
          email={step.email}
          resendAvailableAt={step.resendAvailableAt}
          onResent={(resendAvailableAt) => setStep({ ...step, resendAvailableAt })}
          onDone={(message) => setStep({ name: 'done', message })}
        />
      ) : (
        <Alert variant="success" className="text-start">
          <Alert.Heading as="h2" className="h6">
            Password changed
          </Alert.Heading>
          <p>{step.message}</p>
          <a href={serverPaths.ssoStart()} className="btn btn-primary btn-sm">
            Sign in
          </a>
        </Alert>
      )}
    </PublicCard>
  );
}
