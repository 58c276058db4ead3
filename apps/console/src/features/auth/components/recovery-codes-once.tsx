import './authenticator.css';
import { Download, LifeBuoy } from 'lucide-react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import { CopyButton } from '../../../components/copy-button.tsx';

/** The text file a person keeps: what the codes are for, and the codes one a line. */
function recoveryCodesFile(email: string, codes: string[]): string {
  return [
    `Atrium recovery codes for ${email}`,
    '',
    'Each code signs you in once when your passkey or authenticator app is not at hand.',
    'Keep them somewhere safe; making new codes stops these from working.',
    '',
    ...codes,
    '',
  ].join('\n');
}

function download(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** New recovery codes, shown this once: copy them, download them as a file, then done. */
export function RecoveryCodesOnce({
  email,
  codes,
  onDone,
}: {
  email: string;
  codes: string[];
  onDone: () => void;
}) {
  const file = recoveryCodesFile(email, codes);
  return (
    <Alert variant="warning" data-testid="recovery-codes-once" className="mb-0">
      <Alert.Heading as="h3" className="h6 d-flex align-items-center gap-2">
        <LifeBuoy size={18} aria-hidden="true" />
        Save your recovery codes now
      </Alert.Heading>
      <p className="small mb-2">
        If you lose your passkey or the phone with your authenticator app, each code signs you in once
        instead. This is the only time they are shown.
      </p>
      <ul className="list-unstyled atrium-recovery-codes font-monospace mb-3" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className="d-flex flex-wrap gap-2">
        <Button
          variant="primary"
          size="sm"
          className="d-inline-flex align-items-center gap-1"
          onClick={() => download('atrium-recovery-codes.txt', file)}
        >
          <Download size={16} aria-hidden="true" />
          Download
        </Button>
        <CopyButton value={codes.join('\n')} label="Copy recovery codes" />
        <Button variant="outline-secondary" size="sm" className="ms-auto" onClick={onDone}>
          I have saved them
        </Button>
      </div>
    </Alert>
  );
}
