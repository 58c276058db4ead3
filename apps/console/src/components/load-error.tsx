import Alert from 'react-bootstrap/Alert';

/** Try again after a part of the page could not be loaded: asks its query once more. */
export function RetryButton({ onRetry }: { onRetry: () => void }) {
  return (
    <button type="button" className="btn btn-sm btn-outline-danger" onClick={onRetry}>
      Try again
    </button>
  );
}

/** A page's content that could not be loaded: what, why (the API's message), and Try again. */
export function LoadError({
  title,
  message,
  onRetry,
}: {
  title: string;
  message: string;
  onRetry: () => void;
}) {
  return (
    <Alert variant="danger">
      <Alert.Heading as="h2" className="h6">
        {title}
      </Alert.Heading>
      <p className="mb-2">{message}</p>
      <RetryButton onRetry={onRetry} />
    </Alert>
  );
}
