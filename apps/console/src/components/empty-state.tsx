import type { LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';

export function EmptyState({
  icon: Icon,
  title,
  children,
  action,
}: {
  icon: LucideIcon;
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="atrium-empty text-center">
      <div className="atrium-empty__icon" aria-hidden="true">
        <Icon size={28} strokeWidth={1.75} />
      </div>
      <h2 className="h5 mt-3 mb-1">{title}</h2>
      {children ? <p className="text-body-secondary mb-3 mx-auto atrium-empty__text">{children}</p> : null}
      {action}
    </div>
  );
}
