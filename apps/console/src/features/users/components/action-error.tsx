import Alert from 'react-bootstrap/Alert';

/** A failed action on the user page: a heading saying what failed and the server's reason. */
export function ActionError({
  title,
  error,
  onClose,
}: {
  title: string;
  error: Error | null;
  onClose?: () => void;
}) {
  if (!error) return null;
  return (
    <Alert variant="danger" dismissible={!!onClose} onClose={onClose}>
      <Alert.Heading as="h3" className="h6">
        {title}
      </Alert.Heading>
      <p className="mb-0">{error.message}</p>
    </Alert>
  );
}
