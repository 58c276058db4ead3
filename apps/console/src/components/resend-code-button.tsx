import Button from 'react-bootstrap/Button';
import { useCountdown } from '../lib/use-countdown.ts';

/**
 * "Send a new code" for an e-mailed code: counts down until `availableAt` (the server's ReSend
 * wait) and stays disabled while a new code is being sent. Given `resent`, a polite live note
 * follows the button and says when the new code is on its way.
 */
export function ResendCodeButton({
  availableAt,
  sending,
  onClick,
  resent,
}: {
  availableAt: string | null;
  sending: boolean;
  onClick: () => void;
  resent?: boolean;
}) {
  const wait = useCountdown(availableAt);
  return (
    <>
      <Button variant="link" size="sm" className="p-0" onClick={onClick} disabled={wait > 0 || sending}>
        {wait > 0 ? `Send a new code in ${wait} s` : 'Send a new code'}
      </Button>
      {resent === undefined ? null : (
        <span aria-live="polite" className="text-success">
          {resent ? 'A new code is on its way.' : ''}
        </span>
      )}
    </>
  );
}
