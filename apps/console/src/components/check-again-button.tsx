import { RefreshCw } from 'lucide-react';
import Button from 'react-bootstrap/Button';

/** Looks something up again (DNS records): "Checking…" while it does. */
export function CheckAgainButton({
  checking,
  onCheck,
  label = 'Check again',
}: {
  checking: boolean;
  onCheck: () => void;
  label?: string;
}) {
  return (
    <Button
      variant="outline-secondary"
      size="sm"
      className="d-inline-flex align-items-center gap-1"
      onClick={onCheck}
      disabled={checking}
    >
      <RefreshCw size={16} aria-hidden="true" />
      {checking ? 'Checking…' : label}
    </Button>
  );
}
