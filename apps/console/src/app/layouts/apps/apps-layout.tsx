import { AppWindow, LayoutDashboard, Menu } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Link, Outlet, useLocation } from 'react-router';
import { Logo } from '../../../components/logo.tsx';
import { ProfileMenu } from '../../../components/profile-panel.tsx';
import { ScrollArea } from '../../../components/scroll-area.tsx';
import { useCurrentUser } from '../../../features/auth/api/current-user.ts';
import { NotificationsMenu } from '../../../features/notifications/components/notifications-menu.tsx';
import { useUserApplications } from '../../../features/apps/api/user-applications.ts';
import { AppLink } from '../../../features/apps/components/app-link.tsx';
import { PRODUCT_NAME, SIDEBAR_BREAKPOINT } from '../../../lib/constants.ts';
import { paths, routes } from '../../../lib/paths.ts';
import { useWindowWidth } from '../../../lib/use-window-width.ts';

export default function AppsLayout() {
  const user = useCurrentUser();
  const width = useWindowWidth();
  const isDrawer = width < SIDEBAR_BREAKPOINT;
  const [drawerOpen, setDrawerOpen] = useState(false);
  // The same query as the apps page: exactly the apps this user may open.
  const apps = useUserApplications().data?.apps ?? [];
  const open = isDrawer && drawerOpen;

  const { pathname } = useLocation();
  // Only the apps page itself: other pages shown in this layout (/notifications, /profile for
  // non-admins) set their own title, and this effect would run after theirs.
  useEffect(() => {
    if (pathname === routes.application) document.title = `Apps | ${PRODUCT_NAME}`;
  }, [pathname]);

  useEffect(() => {
    if (!isDrawer) setDrawerOpen(false);
  }, [isDrawer]);

  return (
    <div
      className={`atrium-shell atrium-apps${open ? ' mob-open' : ''}`}
      data-sidebar={isDrawer ? 'drawer' : 'wide'}
    >
      <header className="atrium-header">
        <div className="atrium-header__brand">
          <a
            href="#"
            className="atrium-icon-btn atrium-header__toggle d-lg-none"
            aria-label={open ? 'Close apps menu' : 'Open apps menu'}
            aria-controls="atrium-apps-sidebar"
            onClick={(event) => {
              event.preventDefault();
              setDrawerOpen((value) => !value);
            }}
          >
            <Menu size={22} aria-hidden="true" />
          </a>
          <Link to={paths.application()} className="atrium-header__logo" aria-label="Atrium apps">
            <Logo />
          </Link>
        </div>
        <div className="atrium-header__content justify-content-end">
          <div className="atrium-header__right">
            <NotificationsMenu />
            <ProfileMenu />
          </div>
        </div>
      </header>
      <aside
        id="atrium-apps-sidebar"
        className={`atrium-sidebar${open ? ' mob-open' : ''}`}
        aria-label="Apps"
        data-testid="apps-sidebar"
      >
        <ScrollArea className="atrium-sidebar__scroll" role="region" aria-label="Apps menu">
          <ul className="atrium-nav">
            <li className="atrium-nav__group">
              <div className="atrium-nav__caption">Your apps</div>
              <ul className="atrium-nav__list">
                {apps.map((app) => (
                  <li key={app.id} className="atrium-nav__entry">
                    <AppLink app={app} className="atrium-nav__link" onClick={() => setDrawerOpen(false)}>
                      <span className="atrium-nav__icon" aria-hidden="true">
                        <img src={app.image} alt="" width={22} height={22} />
                      </span>
                      <span className="atrium-nav__label">{app.title}</span>
                    </AppLink>
                  </li>
                ))}
                {apps.length === 0 ? (
                  <li className="atrium-nav__entry px-3 py-2 small text-body-secondary">No apps yet</li>
                ) : null}
              </ul>
            </li>
            {user.isAdmin ? (
              <li className="atrium-nav__group">
                <div className="atrium-nav__caption">Administration</div>
                <ul className="atrium-nav__list">
                  <li className="atrium-nav__entry">
                    <Link to={paths.dashboard()} className="atrium-nav__link">
                      <span className="atrium-nav__icon" aria-hidden="true">
                        <LayoutDashboard size={20} strokeWidth={1.85} />
                      </span>
                      <span className="atrium-nav__label">Admin Console</span>
                    </Link>
                  </li>
                  <li className="atrium-nav__entry">
                    <Link to={paths.apps()} className="atrium-nav__link">
                      <span className="atrium-nav__icon" aria-hidden="true">
                        <AppWindow size={20} strokeWidth={1.85} />
                      </span>
                      <span className="atrium-nav__label">Manage apps</span>
                    </Link>
                  </li>
                </ul>
              </li>
            ) : null}
          </ul>
        </ScrollArea>
      </aside>
      {open ? <div className="atrium-backdrop" onClick={() => setDrawerOpen(false)} /> : null}
      <main className="atrium-main" id="main-content">
        <div className="atrium-page">
          <Outlet />
        </div>
      </main>
    </div>
  );
}
