import { createBrowserRouter, type RouteObject } from 'react-router';
import type { ComponentType } from 'react';
import { prefetchInteractionState } from '../features/auth/api/interaction.ts';
import { loadOptionalSession, requireAdmin, requireSignedIn } from '../features/auth/require-session.ts';
import { landInSetupUntilFinished } from '../features/setup/setup-landing.ts';
import { routes } from '../lib/paths.ts';
import { RouteError } from './route-error.tsx';
import { Root, RootFallback } from './root.tsx';

/** A lazily loaded route module whose default export is the page. */
function page(load: () => Promise<{ default: ComponentType }>): RouteObject['lazy'] {
  return async () => ({ Component: (await load()).default });
}

export const routeTree: RouteObject[] = [
  {
    Component: Root,
    HydrateFallback: RootFallback,
    ErrorBoundary: RouteError,
    children: [
      { path: routes.signup, lazy: page(() => import('./routes/signup.tsx')) },
      {
        path: routes.login,
        loader: prefetchInteractionState,
        lazy: page(() => import('./routes/login.tsx')),
      },
      { path: routes.forgotPassword, lazy: page(() => import('./routes/forgot-password.tsx')) },
      { path: routes.invite, lazy: page(() => import('./routes/invite.tsx')) },
      { path: routes.resetPassword, lazy: page(() => import('./routes/invite.tsx')) },
      { path: routes.accessDenied, lazy: page(() => import('./routes/access-denied.tsx')) },
      {
        lazy: page(() => import('./layouts/apps/apps-layout.tsx')),
        loader: requireSignedIn,
        children: [{ path: routes.application, lazy: page(() => import('./routes/application.tsx')) }],
      },
      {
        // Anyone may see the 404, inside the layout that fits who they are.
        lazy: page(() => import('./layouts/any-visitor-layout.tsx')),
        loader: loadOptionalSession,
        children: [{ path: routes.notFound, lazy: page(() => import('./routes/not-found.tsx')) }],
      },
      {
        // Everyone's notifications: inside the admin layout for admins, the apps layout otherwise.
        lazy: page(() => import('./layouts/signed-in-layout.tsx')),
        loader: requireSignedIn,
        children: [
          { path: routes.notifications, lazy: page(() => import('./routes/notifications.tsx')) },
          { path: routes.profile, lazy: page(() => import('./routes/profile.tsx')) },
          // The same page, scrolled to "Set up a device" with its heading focused.
          { path: routes.profileDevices, lazy: page(() => import('./routes/profile.tsx')) },
        ],
      },
      {
        lazy: page(() => import('./layouts/admin/admin-layout.tsx')),
        loader: requireAdmin,
        children: [
          // The admin landing pages: until setup is finished the admin lands in the wizard.
          {
            index: true,
            loader: landInSetupUntilFinished,
            lazy: page(() => import('./routes/dashboard.tsx')),
          },
          {
            path: routes.dashboard,
            loader: landInSetupUntilFinished,
            lazy: page(() => import('./routes/dashboard.tsx')),
          },
          { path: routes.setup, lazy: page(() => import('./routes/setup.tsx')) },
          { path: routes.organization, lazy: page(() => import('./routes/organization.tsx')) },
          { path: routes.addDomain, lazy: page(() => import('./routes/add-domain.tsx')) },
          { path: routes.domains, lazy: page(() => import('./routes/domains.tsx')) },
          { path: routes.users, lazy: page(() => import('./routes/users.tsx')) },
          { path: routes.addUser, lazy: page(() => import('./routes/add-user.tsx')) },
          { path: routes.userDetail, lazy: page(() => import('./routes/user-detail.tsx')) },
          { path: routes.verifyDomain, lazy: page(() => import('./routes/verify-domain.tsx')) },
          { path: routes.groups, lazy: page(() => import('./routes/groups.tsx')) },
          { path: routes.apps, lazy: page(() => import('./routes/apps.tsx')) },
          { path: routes.appsCatalog, lazy: page(() => import('./routes/apps-catalog.tsx')) },
          { path: routes.appInstall, lazy: page(() => import('./routes/app-install.tsx')) },
          { path: routes.appDetail, lazy: page(() => import('./routes/app-detail.tsx')) },
          { path: routes.activity, lazy: page(() => import('./routes/activity.tsx')) },
          { path: routes.dataMigration, lazy: page(() => import('./routes/data-migration.tsx')) },
          { path: routes.subscriptions, lazy: page(() => import('./routes/subscriptions.tsx')) },
          { path: routes.mailSettings, lazy: page(() => import('./routes/mail-settings.tsx')) },
          // The seed spec: the catch-all shows the dashboard.
          { path: '*', loader: landInSetupUntilFinished, lazy: page(() => import('./routes/dashboard.tsx')) },
        ],
      },
    ],
  },
];

export function createRouter() {
  return createBrowserRouter(routeTree);
}
