import Alert from 'react-bootstrap/Alert';

/** Why "Make primary" failed (the domains list and a domain's page), until it is closed. */
export function MakePrimaryError({ error, onClose }: { error: Error | null; onClose: () => void }) {
  return error ? (
    <Alert variant="danger" dismissible onClose={onClose}>
      <Alert.Heading as="h2" className="h6">
        The primary domain was not changed
      </Alert.Heading>
      <p className="mb-0">{error.message}</p>
    </Alert>
  ) : null;
}
