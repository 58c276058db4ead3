import type { LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { EmptyState } from './empty-state.tsx';
import { PageHeader } from './page-header.tsx';

/** An admin page whose content a later issue fills: a title and a friendly empty state. */
export function PlaceholderPage({
  title,
  description,
  icon,
  emptyTitle,
  emptyText,
  actions,
  emptyAction,
}: {
  title: string;
  description: ReactNode;
  icon: LucideIcon;
  emptyTitle: string;
  emptyText: ReactNode;
  actions?: ReactNode;
  emptyAction?: ReactNode;
}) {
  return (
    <>
      <PageHeader title={title} description={description} actions={actions} />
      <div className="card atrium-card">
        <div className="card-body">
          <EmptyState icon={icon} title={emptyTitle} action={emptyAction}>
            {emptyText}
          </EmptyState>
        </div>
      </div>
    </>
  );
}
