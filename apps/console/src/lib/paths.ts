/** Console routes. Components build links with these helpers instead of writing URL strings. */
export const routes = {
  application: '/application',
  dashboard: '/dashboard',
  organization: '/organization',
  addDomain: '/addomain',
  domains: '/domain',
  users: '/users',
  addUser: '/adduser',
  verifyDomain: '/d-verify',
  profile: '/profile',
  /** /profile opened at its "Set up a device" section (issue 42 item 5). */
  profileDevices: '/profile/devices',
  notFound: '/404',
  groups: '/groups',
  signup: '/signup',
  login: '/login',
  forgotPassword: '/forgot-password',
  apps: '/apps',
  appsCatalog: '/apps/catalog',
  appInstall: '/apps/install/:templateKey',
  appDetail: '/apps/:appId',
  accessDenied: '/access-denied',
  notifications: '/notifications',
  activity: '/activity',
  subscriptions: '/subscriptions',
  setup: '/setup',
  userDetail: '/users/:userId',
  invite: '/invite/:token',
  resetPassword: '/reset-password/:token',
  dataMigration: '/data-migration',
  mailSettings: '/mail-settings',
} as const;

export type RouteName = keyof typeof routes;
export type RoutePath = (typeof routes)[RouteName];

export const paths = {
  application: () => routes.application,
  dashboard: () => routes.dashboard,
  organization: () => routes.organization,
  addDomain: () => routes.addDomain,
  domains: () => routes.domains,
  users: () => routes.users,
  addUser: () => routes.addUser,
  /** A domain's page: its TXT record and Verify while pending, its DNS mapping once verified. */
  verifyDomain: (id?: string) =>
    id ? `${routes.verifyDomain}?${new URLSearchParams({ id })}` : routes.verifyDomain,
  profile: () => routes.profile,
  profileDevices: () => routes.profileDevices,
  notFound: () => routes.notFound,
  /** The groups page, with one group's members open when `groupId` is given. */
  groups: (groupId?: string) =>
    groupId ? `${routes.groups}?${new URLSearchParams({ group: groupId })}` : routes.groups,
  signup: () => routes.signup,
  login: () => routes.login,
  forgotPassword: () => routes.forgotPassword,
  apps: () => routes.apps,
  appsCatalog: () => routes.appsCatalog,
  /** The install page; from the setup wizard, its Done goes back to the wizard. */
  appInstall: (templateKey: string, from?: 'setup') =>
    `/apps/install/${encodeURIComponent(templateKey)}${from ? `?${new URLSearchParams({ from })}` : ''}`,
  appDetail: (appId: string) => `/apps/${encodeURIComponent(appId)}`,
  accessDenied: (appName?: string) =>
    appName ? `${routes.accessDenied}?${new URLSearchParams({ app: appName })}` : routes.accessDenied,
  notifications: () => routes.notifications,
  activity: () => routes.activity,
  subscriptions: () => routes.subscriptions,
  setup: () => routes.setup,
  userDetail: (userId: string) => `/users/${encodeURIComponent(userId)}`,
  invite: (token: string) => `/invite/${encodeURIComponent(token)}`,
  resetPassword: (token: string) => `/reset-password/${encodeURIComponent(token)}`,
  dataMigration: () => routes.dataMigration,
  mailSettings: () => routes.mailSettings,
} as const satisfies Record<RouteName, (...args: never[]) => string>;

/** Server addresses the browser navigates to (not fetched). */
export const serverPaths = {
  ssoLogout: () => '/api/sso/logout',
  /** The filtered users list as a CSV download (a plain GET with the session cookie). */
  usersExport: (query: Record<string, string | undefined>) => {
    const params = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => !!e[1]));
    return `/api/users/export.csv${params.size ? `?${params}` : ''}`;
  },
  /** An import's result: every row with what was done with it (a plain GET with the session cookie). */
  userImportResult: (id: string) => `/api/migration/user-imports/${encodeURIComponent(id)}/result.csv`,
  /** Single sign-on for the console; back to `returnTo` (a console path) afterwards. */
  ssoStart: (returnTo?: string) =>
    returnTo && returnTo !== '/' ? `/api/sso/start?${new URLSearchParams({ returnTo })}` : '/api/sso/start',
} as const;
