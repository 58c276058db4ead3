import { createContext, use, useEffect, useState, type ReactNode } from 'react';
import { useLocation } from 'react-router';

/** A title a page gives itself (a user's name, "Install Wiki"), for the path it was set on. */
export interface PageTitle {
  path: string;
  title: string;
}

interface PageTitleContextValue {
  pageTitle: PageTitle | null;
  setPageTitle: (value: PageTitle | null) => void;
}

const PageTitleContext = createContext<PageTitleContextValue | null>(null);

/** Lets the layout's breadcrumb and document title follow a title the page knows only once loaded. */
export function PageTitleProvider({ children }: { children: ReactNode }) {
  const [pageTitle, setPageTitle] = useState<PageTitle | null>(null);
  return <PageTitleContext value={{ pageTitle, setPageTitle }}>{children}</PageTitleContext>;
}

/**
 * Names the current page in the breadcrumb and the document title instead of its sidebar entry.
 * Undefined while the page does not know it yet; outside a provider (unit tests) it does nothing.
 */
export function usePageTitle(title: string | undefined): void {
  const { pathname } = useLocation();
  const setPageTitle = use(PageTitleContext)?.setPageTitle;
  useEffect(() => {
    if (!setPageTitle || !title) return;
    setPageTitle({ path: pathname, title });
    return () => setPageTitle(null);
  }, [setPageTitle, pathname, title]);
}

/** The title the page at `pathname` gave itself, if any (a stale one of another page never shows). */
export function usePageTitleFor(pathname: string): string | undefined {
  const pageTitle = use(PageTitleContext)?.pageTitle;
  return pageTitle?.path === pathname ? pageTitle.title : undefined;
}
