import { useEffect, useRef } from 'react';
import { Outlet } from 'react-router';
import { AUTO_COLLAPSE_MAX, AUTO_COLLAPSE_MIN, SIDEBAR_BREAKPOINT } from '../../../lib/constants.ts';
import { PageTitleProvider } from '../../../components/page-title.tsx';
import { useWindowWidth } from '../../../lib/use-window-width.ts';
import { Breadcrumbs } from './breadcrumbs.tsx';
import { AdminHeader } from './header.tsx';
import { COLLAPSE_MENU } from './layout-reducer.ts';
import { useLayout } from './layout-context.tsx';
import { navigation } from './navigation.ts';
import { NavContent } from './sidebar.tsx';

export type SidebarZone = 'drawer' | 'auto-collapse' | 'wide';

/** Below 992 px a drawer; from 992 to 1024 px collapsed automatically; wider, a full sidebar. */
export function sidebarZone(width: number): SidebarZone {
  if (width < SIDEBAR_BREAKPOINT) return 'drawer';
  if (width >= AUTO_COLLAPSE_MIN && width <= AUTO_COLLAPSE_MAX) return 'auto-collapse';
  return 'wide';
}

/**
 * How collapseMenu shows: below 992 px as the drawer being open (mob-open), otherwise as the
 * sidebar being narrowed to icons (navbar-collapsed).
 */
export function sidebarDisplayClass(width: number, collapseMenu: boolean): string {
  if (!collapseMenu) return '';
  return width < SIDEBAR_BREAKPOINT ? 'mob-open' : 'navbar-collapsed';
}

export default function AdminLayout() {
  const width = useWindowWidth();
  const { state, dispatch } = useLayout();
  const zone = sidebarZone(width);
  const previousZone = useRef<SidebarZone | null>(null);
  const collapsed = useRef(state.collapseMenu);
  collapsed.current = state.collapseMenu;

  useEffect(() => {
    const previous = previousZone.current;
    previousZone.current = zone;
    if (previous === zone) return;
    if (zone === 'auto-collapse') {
      if (!collapsed.current) dispatch({ type: COLLAPSE_MENU });
    } else if (previous !== null && collapsed.current) {
      // Leaving a zone: start the new one closed (no drawer popping open, no stale collapse).
      dispatch({ type: COLLAPSE_MENU });
    }
  }, [zone, dispatch]);

  const drawerOpen = zone === 'drawer' && state.collapseMenu;

  useEffect(() => {
    if (!drawerOpen) return;
    function onKeyDown(event: KeyboardEvent) {
      if (event.key === 'Escape') dispatch({ type: COLLAPSE_MENU });
    }
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [drawerOpen, dispatch]);

  function onItemClick() {
    if (zone === 'drawer' && collapsed.current) dispatch({ type: COLLAPSE_MENU });
  }

  const display = sidebarDisplayClass(width, state.collapseMenu);

  return (
    <div className={`atrium-shell atrium-admin ${display}`} data-sidebar={zone}>
      <a href="#main-content" className="visually-hidden-focusable atrium-skip-link">
        Skip to main content
      </a>
      <AdminHeader width={width} />
      <aside
        id="atrium-sidebar"
        className={`atrium-sidebar ${display}`}
        aria-label="Main navigation"
        data-testid="sidebar"
      >
        <NavContent items={navigation} onItemClick={onItemClick} collapsed={display === 'navbar-collapsed'} />
      </aside>
      {drawerOpen ? (
        <div
          className="atrium-backdrop"
          data-testid="drawer-backdrop"
          onClick={() => dispatch({ type: COLLAPSE_MENU })}
        />
      ) : null}
      <main className="atrium-main" id="main-content" tabIndex={-1}>
        <PageTitleProvider>
          <Breadcrumbs />
          <div className="atrium-page">
            <Outlet />
          </div>
        </PageTitleProvider>
      </main>
    </div>
  );
}
