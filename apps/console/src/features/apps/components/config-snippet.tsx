import { CopyButton } from '../../../components/copy-button.tsx';

/** The app's ready configuration, with a copy button. */
export function ConfigSnippet({ id, snippet, language }: { id: string; snippet: string; language: string }) {
  return (
    <>
      <div className="d-flex align-items-center justify-content-between mb-1">
        <span className="small fw-semibold" id={id}>
          Configuration ({language})
        </span>
        <CopyButton value={snippet} label="Copy configuration" />
      </div>
      <pre
        className="atrium-snippet bg-body-tertiary border rounded p-3 small mb-0"
        // Wrapped rather than scrolled: a long line must not widen the page on a phone.
        style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}
        aria-labelledby={id}
        tabIndex={0}
      >
        <code>{snippet}</code>
      </pre>
    </>
  );
}
