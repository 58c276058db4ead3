import type { LucideIcon } from 'lucide-react';
import { useEffect, type ReactNode } from 'react';
import { PRODUCT_NAME } from '../lib/constants.ts';
import { Logo } from './logo.tsx';

/** A centred card on a quiet background, for the public pages (sign-up, sign-in, password reset). */
export function PublicCard({
  title,
  icon: Icon,
  children,
  footer,
}: {
  title: string;
  icon: LucideIcon;
  children: ReactNode;
  footer?: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} | ${PRODUCT_NAME}`;
  }, [title]);
  return (
    <div className="atrium-public">
      <main className="atrium-public__inner">
        <div className="text-center mb-4 atrium-public__brand">
          <Logo />
        </div>
        <div className="card atrium-card shadow-sm">
          <div className="card-body p-4 p-sm-5 text-center">
            <div className="atrium-empty__icon mx-auto mb-3" aria-hidden="true">
              <Icon size={26} strokeWidth={1.75} />
            </div>
            <h1 className="h4 mb-2">{title}</h1>
            {children}
          </div>
        </div>
        {footer ? <div className="text-center small text-body-secondary mt-4">{footer}</div> : null}
      </main>
    </div>
  );
}
