import type { ReactNode } from 'react';
import Button from 'react-bootstrap/Button';
import ListGroup from 'react-bootstrap/ListGroup';

/** One address in a list: the address in bold over `children` (who it is for), and its Remove button. */
export function AddressListItem({
  address,
  removeLabel,
  onRemove,
  children,
}: {
  address: string;
  removeLabel: string;
  onRemove: () => void;
  children: ReactNode;
}) {
  return (
    <ListGroup.Item as="li" className="d-flex align-items-center justify-content-between gap-2">
      <div className="text-break min-w-0">
        <div className="fw-semibold">{address}</div>
        <div className="small text-body-secondary">{children}</div>
      </div>
      <Button
        variant="outline-danger"
        size="sm"
        className="flex-shrink-0"
        aria-label={removeLabel}
        onClick={onRemove}
      >
        Remove
      </Button>
    </ListGroup.Item>
  );
}
