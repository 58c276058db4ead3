import type { ReactNode } from 'react';
import Button from 'react-bootstrap/Button';

/** The part of an infinite query that reads its next page. */
export interface NextPages {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}

/** "Show more" under a list read page by page; there only while the query has a next page. */
export function LoadMoreButton({ pages, children }: { pages: NextPages; children: ReactNode }) {
  if (!pages.hasNextPage) return null;
  return (
    <Button
      variant="outline-secondary"
      size="sm"
      className="mt-3"
      disabled={pages.isFetchingNextPage}
      onClick={() => void pages.fetchNextPage()}
    >
      {children}
    </Button>
  );
}

/** The footer of a card listing newest first: a link to the older entries, while there are any. */
export function OlderEntriesFooter({ pages, label }: { pages: NextPages; label: string }) {
  if (!pages.hasNextPage) return null;
  return (
    <div className="card-footer bg-transparent text-center">
      <Button variant="link" disabled={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
        {pages.isFetchingNextPage ? 'Loading…' : label}
      </Button>
    </div>
  );
}
