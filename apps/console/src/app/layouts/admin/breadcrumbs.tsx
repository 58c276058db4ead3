import { House } from 'lucide-react';
import { useEffect } from 'react';
import { Link, useLocation } from 'react-router';
import { PRODUCT_NAME } from '../../../lib/constants.ts';
import { paths } from '../../../lib/paths.ts';
import { usePageTitleFor } from '../../../components/page-title.tsx';
import { findBreadcrumb, navigation, withPageTitle, type NavigationItem } from './navigation.ts';

/** The document title; capitalised, as the seed spec's lowercase `organization` label is not. */
export function pageTitle(itemTitle: string): string {
  return `${itemTitle.charAt(0).toUpperCase()}${itemTitle.slice(1)} | ${PRODUCT_NAME}`;
}

/**
 * Home icon, group title, item title; the document title follows the item title. A page that
 * names itself (usePageTitle) replaces the item title.
 */
export function Breadcrumbs({ items = navigation }: { items?: NavigationItem[] }) {
  const { pathname } = useLocation();
  const trail = withPageTitle(findBreadcrumb(pathname, items), pathname, usePageTitleFor(pathname));

  useEffect(() => {
    document.title = pageTitle(trail.item.title);
  }, [trail.item.title]);

  return (
    <nav aria-label="Breadcrumb" className="atrium-breadcrumb">
      <ol className="breadcrumb mb-0">
        <li className="breadcrumb-item">
          <Link to={paths.dashboard()} aria-label="Home" className="atrium-breadcrumb__home">
            <House size={16} aria-hidden="true" />
          </Link>
        </li>
        {trail.group ? (
          <li className="breadcrumb-item">
            <span>{trail.group.title}</span>
          </li>
        ) : null}
        {trail.parents.map((crumb) => (
          <li key={`${crumb.title}-${crumb.url ?? ''}`} className="breadcrumb-item">
            {crumb.url ? (
              <Link to={crumb.url} className={crumb.classes}>
                {crumb.title}
              </Link>
            ) : (
              <span className={crumb.classes}>{crumb.title}</span>
            )}
          </li>
        ))}
        <li className="breadcrumb-item active" aria-current="page">
          <span className={trail.item.classes}>{trail.item.title}</span>
        </li>
      </ol>
    </nav>
  );
}
