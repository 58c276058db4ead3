import Alert from 'react-bootstrap/Alert';
import type { ApiError } from '../../../lib/api-client.ts';

/** A failure that belongs to no field: a heading and the server's message. */
export function FormAlert({
  heading,
  error,
  onClose,
}: {
  heading: string;
  error: ApiError | null;
  onClose: () => void;
}) {
  if (!error) return null;
  return (
    <Alert variant="danger" dismissible onClose={onClose}>
      <Alert.Heading as="h2" className="h6">
        {heading}
      </Alert.Heading>
      <p className="mb-0">{error.message}</p>
    </Alert>
  );
}
