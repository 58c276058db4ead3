import type { AppMenuItem } from '@atrium/contracts/apps';
import type { ReactNode } from 'react';

/**
 * Opens an app's launch URL in a new tab. `noopener` so the app cannot script the console's
 * window through `window.opener`.
 */
export function AppLink({
  app,
  className,
  onClick,
  children,
}: {
  app: AppMenuItem;
  className?: string;
  onClick?: () => void;
  children: ReactNode;
}) {
  return (
    <a
      href={app.url}
      target="_blank"
      rel="noopener"
      className={className}
      data-app-id={app.app_id}
      onClick={onClick}
    >
      {children}
    </a>
  );
}
