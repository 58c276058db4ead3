import { KeyRound } from 'lucide-react';
import Alert from 'react-bootstrap/Alert';
import { CopyField } from '../../../components/copy-button.tsx';

/** The client secret, shown in the one response that carries it; it cannot be read again. */
export function SecretOnce({ secret }: { secret: string }) {
  return (
    <Alert variant="warning" className="mb-4" data-testid="client-secret">
      <Alert.Heading as="h2" className="h6 d-flex align-items-center gap-2">
        <KeyRound size={18} aria-hidden="true" />
        Copy the client secret now
      </Alert.Heading>
      <p className="small mb-2">
        This is the only time it is shown. If you lose it, rotate the secret on the app&apos;s page and update
        the app.
      </p>
      <CopyField id="client-secret" label="Client secret" value={secret} />
    </Alert>
  );
}
