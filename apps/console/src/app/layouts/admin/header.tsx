import { LayoutGrid, Menu } from 'lucide-react';
import { useCallback, useState } from 'react';
import { Link } from 'react-router';
import { Logo } from '../../../components/logo.tsx';
import { ProfileMenu } from '../../../components/profile-panel.tsx';
import { useCurrentUser } from '../../../features/auth/api/current-user.ts';
import { NotificationsMenu } from '../../../features/notifications/components/notifications-menu.tsx';
import { HEADER_SEARCH_BREAKPOINT, SIDEBAR_BREAKPOINT } from '../../../lib/constants.ts';
import { paths } from '../../../lib/paths.ts';
import { COLLAPSE_MENU } from './layout-reducer.ts';
import { useLayout } from './layout-context.tsx';
import { NavSearch } from './nav-search.tsx';

export function AdminHeader({ width }: { width: number }) {
  const { state, dispatch } = useLayout();
  const user = useCurrentUser();
  const [searchOpen, setSearchOpen] = useState(false);
  const onSearchOpenChange = useCallback((open: boolean) => setSearchOpen(open), []);
  const hideRight = searchOpen && width < HEADER_SEARCH_BREAKPOINT;
  // collapseMenu opens the drawer below 992 px and narrows the sidebar above (sidebarDisplayClass).
  const menuShown = width < SIDEBAR_BREAKPOINT ? state.collapseMenu : !state.collapseMenu;

  return (
    <header className="atrium-header">
      <div className="atrium-header__brand">
        {/* The seed spec's toggle link (target #); it acts as a button, so it says it is one, and
            whether the menu it controls is shown. Space presses it as it would a button. */}
        <a
          href="#"
          role="button"
          className="atrium-icon-btn atrium-header__toggle"
          aria-label="Navigation menu"
          aria-expanded={menuShown}
          aria-controls="atrium-sidebar"
          onClick={(event) => {
            event.preventDefault();
            dispatch({ type: COLLAPSE_MENU });
          }}
          onKeyDown={(event) => {
            if (event.key !== ' ') return;
            event.preventDefault();
            dispatch({ type: COLLAPSE_MENU });
          }}
        >
          <Menu size={22} aria-hidden="true" />
        </a>
        <Link to={paths.dashboard()} className="atrium-header__logo" aria-label="Atrium admin home">
          <Logo />
        </Link>
      </div>
      <div className="atrium-header__content">
        <NavSearch width={width} onOpenChange={onSearchOpenChange} />
        <div
          id="navbar-right"
          className={`atrium-header__right${hideRight ? ' d-none' : ''}`}
          data-testid="header-right"
        >
          <span className="atrium-header__org d-none d-sm-inline-flex" data-testid="header-org">
            {user.organization.name}
          </span>
          <Link to={paths.application()} className="atrium-header__apps" aria-label="Apps">
            <LayoutGrid size={20} aria-hidden="true" />
            <span className="d-none d-sm-inline">Apps</span>
          </Link>
          <NotificationsMenu />
          <ProfileMenu />
        </div>
      </div>
    </header>
  );
}
