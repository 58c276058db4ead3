import { describe, expect, it } from 'vitest';
import { routes } from '../../../lib/paths.ts';
import { findBreadcrumb, navigation, withPageTitle, type NavigationItem } from './navigation.ts';

const group = navigation[0]!;
const entries = group.children ?? [];

describe('navigation config', () => {
  it('is one group titled for an admin area', () => {
    expect(navigation).toHaveLength(1);
    expect(group.type).toBe('group');
    expect(group.title).toBe('Admin Console');
  });

  it('has the eight entries of the seed spec, then Apps and Activity, each with an icon', () => {
    expect(entries.map((item) => item.title)).toEqual([
      'Admin home',
      'organization',
      'Domain',
      'Users',
      'Groups',
      'Data Migration',
      'Mail Settings',
      'Subscriptions',
      'Apps',
      'Activity',
    ]);
    for (const item of entries) {
      expect(item.type).toBe('item');
      expect(item.icon).toBeTruthy();
    }
  });

  it('points each entry at its route; Groups at /groups (PRODUCT.md), the rest of the unbuilt ones at /404', () => {
    expect(Object.fromEntries(entries.map((item) => [item.title, item.url]))).toEqual({
      'Admin home': '/dashboard',
      organization: '/organization',
      Domain: '/domain',
      Users: '/users',
      Groups: '/groups',
      'Data Migration': '/data-migration',
      'Mail Settings': '/mail-settings',
      Subscriptions: '/subscriptions',
      Apps: '/apps',
      Activity: '/activity',
    });
  });

  it('has unique ids', () => {
    const ids = entries.map((item) => item.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('only uses console routes that exist', () => {
    const known = new Set<string>(Object.values(routes));
    for (const item of entries) expect(known.has(item.url ?? '')).toBe(true);
  });
});

describe('findBreadcrumb', () => {
  it('finds a sidebar entry and its group', () => {
    const trail = findBreadcrumb('/users');
    expect(trail.group?.title).toBe('Admin Console');
    expect(trail.item.title).toBe('Users');
    expect(trail.parents).toEqual([]);
  });

  it('places secondary pages under their entry', () => {
    const trail = findBreadcrumb('/addomain');
    expect(trail.parents.map((crumb) => crumb.title)).toEqual(['Domain']);
    expect(trail.item.title).toBe('Add a domain');
  });

  it('places the catalog and the install page under Apps', () => {
    expect(findBreadcrumb('/apps/catalog').parents.map((crumb) => crumb.title)).toEqual(['Apps']);
    const install = findBreadcrumb('/apps/install/wiki');
    expect(install.parents.map((crumb) => crumb.title)).toEqual(['Apps']);
    expect(install.item.title).toBe('Install an app');
  });

  it('lets a page name itself: under its entry, or in place of a secondary page title', () => {
    const user = withPageTitle(findBreadcrumb('/users/u1'), '/users/u1', 'Grace Hopper');
    expect(user.parents.map((crumb) => crumb.title)).toEqual(['Users']);
    expect(user.item).toEqual({ title: 'Grace Hopper', url: '/users/u1' });
    const install = withPageTitle(findBreadcrumb('/apps/install/wiki'), '/apps/install/wiki', 'Install Wiki');
    expect(install.parents.map((crumb) => crumb.title)).toEqual(['Apps']);
    expect(install.item.title).toBe('Install Wiki');
    expect(withPageTitle(findBreadcrumb('/users'), '/users', undefined).item.title).toBe('Users');
  });

  it('falls back to the dashboard for unknown paths (the catch-all shows it)', () => {
    expect(findBreadcrumb('/no/such/page').item.title).toBe('Admin home');
  });

  it('matches paths under an entry and walks nested collapse menus', () => {
    const tree: NavigationItem[] = [
      {
        id: 'g',
        title: 'Group',
        type: 'group',
        children: [
          {
            id: 'mail',
            title: 'Mail',
            type: 'collapse',
            children: [{ id: 'aliases', title: 'Aliases', type: 'item', url: '/mail/aliases' }],
          },
        ],
      },
    ];
    const trail = findBreadcrumb('/mail/aliases/42', tree);
    expect(trail.group?.title).toBe('Group');
    expect(trail.parents.map((crumb) => crumb.title)).toEqual(['Mail']);
    expect(trail.item.title).toBe('Aliases');
  });
});
