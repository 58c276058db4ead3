import { RefreshCw } from 'lucide-react';
import Button from 'react-bootstrap/Button';

/** Looks something up again (DNS records): "Checking…" while it does. */
export function CheckAgainButton({ checking, onCheck }: { checking: boolean; onCheck: () => void }) {
  return (
    <Button
      variant="outline-secondary"
      size="sm"
      className="d-inline-flex align-items-center gap-1"
      onClick={onCheck}
      disabled={checking}
    >
      <RefreshCw size={16} aria-hidden="true" />
      {checking ? 'Checking…' : 'Check again'}
    </Button>
  );
}
