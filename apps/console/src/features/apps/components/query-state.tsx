import Alert from 'react-bootstrap/Alert';
import Spinner from 'react-bootstrap/Spinner';

/** Loading and failure of a page's main query, shown the same way on every apps page. */
export function QueryState({
  error,
  what,
  onRetry,
}: {
  error: Error | null;
  what: string;
  onRetry: () => void;
}) {
  if (!error) {
    return (
      <div className="d-flex justify-content-center py-5" role="status">
        <Spinner animation="border" size="sm" className="me-2" aria-hidden="true" />
        <span>Loading {what}…</span>
      </div>
    );
  }
  return (
    <Alert variant="danger">
      <Alert.Heading as="h2" className="h6">
        {what[0]!.toUpperCase() + what.slice(1)} could not be loaded
      </Alert.Heading>
      <p className="mb-2">{error.message}</p>
      <button type="button" className="btn btn-sm btn-outline-danger" onClick={onRetry}>
        Try again
      </button>
    </Alert>
  );
}
