import type { AcceptedInvitation } from '@atrium/contracts/invitations';
import { KeyRound } from 'lucide-react';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Spinner from 'react-bootstrap/Spinner';
import { useParams } from 'react-router';
import { PublicCard } from '../../components/public-card.tsx';
import { useSetPasswordLink } from '../../features/users/api/set-password-link.ts';
import { SetPasswordForm } from '../../features/users/components/set-password-form.tsx';
import { serverPaths } from '../../lib/paths.ts';

/**
 * Public: `/invite/:token` (a new user's invitation) and `/reset-password/:token` (a reset an
 * admin sent). The link works once within 72 hours; then the user signs in as usual.
 */
export default function InvitePage() {
  const { token = '' } = useParams();
  const link = useSetPasswordLink(token);
  const [accepted, setAccepted] = useState<AcceptedInvitation | null>(null);
  const title = link.data?.purpose === 'reset' ? 'Choose a new password' : 'Set your password';

  let body;
  if (accepted) {
    body = (
      <Alert variant="success" className="text-start">
        <Alert.Heading as="h2" className="h6">
          Your password is set
        </Alert.Heading>
        <p>From now on, sign in with {accepted.email} and your new password.</p>
        <a href={accepted.next} className="btn btn-primary btn-sm">
          Continue to your apps
        </a>
      </Alert>
    );
  } else if (link.data) {
    body = (
      <>
        <p className="text-body-secondary">
          {link.data.purpose === 'reset'
            ? `Hello ${link.data.firstName}, choose a new password for ${link.data.email} at ${link.data.organizationName}.`
            : `Welcome, ${link.data.firstName}. Choose a password for ${link.data.email} at ${link.data.organizationName}.`}
        </p>
        <SetPasswordForm token={token} email={link.data.email} onDone={setAccepted} />
      </>
    );
  } else if (link.error) {
    body = (
      <Alert variant="warning" className="text-start">
        <Alert.Heading as="h2" className="h6">
          This link cannot be used
        </Alert.Heading>
        <p className="mb-0">{link.error.message}</p>
      </Alert>
    );
  } else {
    body = (
      <div role="status" className="py-3">
        <Spinner animation="border" size="sm" className="me-2" aria-hidden="true" />
        Checking the link…
      </div>
    );
  }
  return (
    <PublicCard title={title} icon={KeyRound} footer={<a href={serverPaths.ssoStart()}>Sign in</a>}>
      {body}
    </PublicCard>
  );
}
