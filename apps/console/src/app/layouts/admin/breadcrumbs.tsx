import { House } from 'lucide-react';
import { useEffect } from 'react';
import { Link, useLocation } from 'react-router';
import { PRODUCT_NAME } from '../../../lib/constants.ts';
import { paths } from '../../../lib/paths.ts';
import { findBreadcrumb, navigation, type NavigationItem } from './navigation.ts';

export function pageTitle(itemTitle: string): string {
  return `${itemTitle} | ${PRODUCT_NAME}`;
}

/** Home icon, group title, item title; the document title follows the item title. */
export function Breadcrumbs({ items = navigation }: { items?: NavigationItem[] }) {
  const { pathname } = useLocation();
  const trail = findBreadcrumb(pathname, items);

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
