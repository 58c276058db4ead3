import type { LucideIcon } from 'lucide-react';
import {
  AppWindow,
  Building2,
  CreditCard,
  DatabaseZap,
  Globe,
  History,
  House,
  Mail,
  UsersRound,
  UserRound,
} from 'lucide-react';
import { routes } from '../../../lib/paths.ts';

/** The seed spec's Navigation item entity. */
export interface NavigationItem {
  id: string;
  title: string;
  type: 'group' | 'collapse' | 'item';
  icon?: LucideIcon;
  url?: string;
  /** Extra CSS classes for the entry. */
  classes?: string;
  /** Open in a new tab. */
  target?: boolean;
  /** An address outside the console. */
  external?: boolean;
  badge?: { type: string; title: string };
  children?: NavigationItem[];
}

/**
 * The admin sidebar: one group, titled for an admin area, with the seed spec's eight entries,
 * then Apps and Activity.
 */
export const navigation: NavigationItem[] = [
  {
    id: 'admin',
    title: 'Admin Console',
    type: 'group',
    children: [
      { id: 'dashboard', title: 'Admin home', type: 'item', icon: House, url: routes.dashboard },
      {
        id: 'organization',
        title: 'organization',
        type: 'item',
        icon: Building2,
        url: routes.organization,
        classes: 'text-capitalize',
      },
      { id: 'domain', title: 'Domain', type: 'item', icon: Globe, url: routes.domains },
      { id: 'users', title: 'Users', type: 'item', icon: UserRound, url: routes.users },
      // Groups points at /groups instead of the seed spec's /404.
      { id: 'groups', title: 'Groups', type: 'item', icon: UsersRound, url: routes.groups },
      {
        id: 'data-migration',
        title: 'Data Migration',
        type: 'item',
        icon: DatabaseZap,
        url: routes.dataMigration,
      },
      { id: 'mail-settings', title: 'Mail Settings', type: 'item', icon: Mail, url: routes.mailSettings },
      // Subscriptions points at /subscriptions instead of the seed spec's /404.
      {
        id: 'subscriptions',
        title: 'Subscriptions',
        type: 'item',
        icon: CreditCard,
        url: routes.subscriptions,
      },
      // Not in the seed spec: installed apps, with the catalog a click away.
      { id: 'apps', title: 'Apps', type: 'item', icon: AppWindow, url: routes.apps },
      // Not in the seed spec: the organisation's activity log (issue 8).
      { id: 'activity', title: 'Activity', type: 'item', icon: History, url: routes.activity },
    ],
  },
];

/** Admin pages that are not sidebar entries, with the entry they belong under. */
export const secondaryPages: Record<string, { title: string; parent?: string }> = {
  [routes.addDomain]: { title: 'Add a domain', parent: 'domain' },
  [routes.verifyDomain]: { title: 'Domain verification', parent: 'domain' },
  [routes.addUser]: { title: 'Add a user', parent: 'users' },
  [routes.profile]: { title: 'Profile' },
  [routes.notifications]: { title: 'Notifications' },
  [routes.setup]: { title: 'Set up your organisation' },
  [routes.notFound]: { title: 'Page not found' },
  [routes.appsCatalog]: { title: 'Add an app', parent: 'apps' },
  // The install page names the app itself (usePageTitle); this is its title until the catalog loads.
  [routes.appInstall.replace('/:templateKey', '')]: { title: 'Install an app', parent: 'apps' },
};

/** A path under a secondary page (e.g. /apps/<id>) belongs to the longest such page. */
function secondaryUnder(path: string): string | undefined {
  return Object.keys(secondaryPages)
    .filter((page) => page !== '/' && path.startsWith(`${page}/`))
    .sort((a, b) => b.length - a.length)[0];
}

export interface Crumb {
  title: string;
  url?: string | undefined;
  classes?: string | undefined;
}

export interface BreadcrumbTrail {
  group: NavigationItem | undefined;
  /** Collapse menus (and, for a secondary page, its sidebar entry) between the group and the item. */
  parents: Crumb[];
  item: Crumb;
}

interface Found {
  chain: NavigationItem[];
  item: NavigationItem;
}

function walk(items: NavigationItem[], chain: NavigationItem[], visit: (found: Found) => void): void {
  for (const item of items) {
    if (item.type === 'item') visit({ chain, item });
    if (item.children) walk(item.children, [...chain, item], visit);
  }
}

function findItem(items: NavigationItem[], match: (item: NavigationItem) => boolean): Found | undefined {
  let result: Found | undefined;
  walk(items, [], (found) => {
    if (!result && match(found.item)) result = found;
  });
  return result;
}

function toTrail({ chain, item }: Found): BreadcrumbTrail {
  return {
    group: chain.find((entry) => entry.type === 'group'),
    parents: chain
      .filter((entry) => entry.type === 'collapse')
      .map(({ title, url, classes }) => ({ title, url, classes })),
    item: { title: item.title, url: item.url, classes: item.classes },
  };
}

/**
 * The breadcrumb for a path: an exact sidebar entry first, then the entry whose address the path
 * is under, then a secondary page; anything else is the dashboard (the catch-all shows it).
 */
export function findBreadcrumb(pathname: string, items: NavigationItem[] = navigation): BreadcrumbTrail {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  const secondaryPath = secondaryPages[path] ? path : secondaryUnder(path);
  const secondary = secondaryPath ? secondaryPages[secondaryPath] : undefined;
  if (secondary) {
    const parent = secondary.parent ? findItem(items, (item) => item.id === secondary.parent) : undefined;
    if (parent) {
      const base = toTrail(parent);
      return {
        group: base.group,
        parents: [...base.parents, base.item],
        item: { title: secondary.title, url: path },
      };
    }
    return {
      group: items.find((entry) => entry.type === 'group'),
      parents: [],
      item: { title: secondary.title, url: path },
    };
  }
  const exact = findItem(items, (item) => item.url === path && !item.external);
  if (exact) return toTrail(exact);
  const under = findItem(
    items,
    (item) => !item.external && item.url !== undefined && item.url !== '/' && path.startsWith(`${item.url}/`),
  );
  if (under) return toTrail(under);
  return toTrail(fallback(items));
}

/**
 * The trail once the page has named itself (a user's name, "Install Wiki"): the name replaces
 * the item's title; on a page under a sidebar entry (/users/<id>) the entry becomes a parent.
 */
export function withPageTitle(trail: BreadcrumbTrail, pathname: string, title: string | undefined) {
  if (!title) return trail;
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  if (trail.item.url === path) return { ...trail, item: { ...trail.item, title, classes: undefined } };
  return { ...trail, parents: [...trail.parents, trail.item], item: { title, url: path } };
}

function fallback(items: NavigationItem[]): Found {
  const dashboard = findItem(items, (item) => item.url === routes.dashboard);
  if (dashboard) return dashboard;
  return { chain: [], item: { id: 'dashboard', title: 'Admin home', type: 'item', url: routes.dashboard } };
}
