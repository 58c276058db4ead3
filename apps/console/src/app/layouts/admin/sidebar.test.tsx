import { cleanup, fireEvent, screen } from '@testing-library/react';
import { Folder } from 'lucide-react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderAt } from '../../../test-utils.tsx';
import type { NavigationItem } from './navigation.ts';
import { navigation } from './navigation.ts';
import { NavContent } from './sidebar.tsx';

afterEach(cleanup);

const tree: NavigationItem[] = [
  {
    id: 'g',
    title: 'Admin',
    type: 'group',
    children: [
      { id: 'home', title: 'Home', type: 'item', icon: Folder, url: '/dashboard' },
      {
        id: 'mail',
        title: 'Mail',
        type: 'collapse',
        icon: Folder,
        children: [
          { id: 'aliases', title: 'Aliases', type: 'item', url: '/mail/aliases' },
          {
            id: 'lists',
            title: 'Lists',
            type: 'collapse',
            children: [{ id: 'members', title: 'Members', type: 'item', url: '/mail/lists/members' }],
          },
        ],
      },
      {
        id: 'docs',
        title: 'Docs',
        type: 'item',
        icon: Folder,
        url: 'https://docs.example.com',
        external: true,
        target: true,
        badge: { type: 'info', title: 'New' },
      },
    ],
  },
];

describe('sidebar navigation', () => {
  it('renders the seed spec entries with the group caption', () => {
    renderAt(<NavContent items={navigation} onItemClick={() => {}} />, '/dashboard');
    expect(screen.getByText('Admin Console')).toBeTruthy();
    for (const title of [
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
    ]) {
      expect(screen.getByRole('link', { name: title })).toBeTruthy();
    }
    expect(screen.getByRole('link', { name: 'Admin home' }).className).toContain('active');
    expect(screen.getByRole('link', { name: 'Groups' })).toHaveProperty('pathname', '/groups');
    expect(screen.getByRole('link', { name: 'Mail Settings' })).toHaveProperty('pathname', '/mail-settings');
    expect(screen.getByRole('link', { name: 'Apps' })).toHaveProperty('pathname', '/apps');
  });

  it('highlights the entry a page lies under (the catalog under Apps)', () => {
    renderAt(<NavContent items={navigation} onItemClick={() => {}} />, '/apps/catalog');
    expect(screen.getByRole('link', { name: 'Apps' }).className).toContain('active');
    expect(screen.getByRole('link', { name: 'Admin home' }).className).not.toContain('active');
  });

  it('opens and highlights a collapse menu when the path contains its id', () => {
    renderAt(<NavContent items={tree} onItemClick={() => {}} />, '/mail/aliases');
    const mail = screen.getByRole('button', { name: 'Mail' });
    expect(mail.getAttribute('aria-expanded')).toBe('true');
    expect(mail.className).toContain('active');
    expect(screen.getByRole('link', { name: 'Aliases' }).className).toContain('active');
    // The nested menu is not in the path: closed until clicked.
    const lists = screen.getByRole('button', { name: 'Lists' });
    expect(lists.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(lists);
    expect(lists.getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByRole('link', { name: 'Members' })).toBeTruthy();
  });

  it('keeps a collapse menu closed elsewhere, and toggles it on click', () => {
    renderAt(<NavContent items={tree} onItemClick={() => {}} />, '/dashboard');
    const mail = screen.getByRole('button', { name: 'Mail' });
    expect(mail.getAttribute('aria-expanded')).toBe('false');
    expect(mail.className).not.toContain('active');
    fireEvent.click(mail);
    expect(mail.getAttribute('aria-expanded')).toBe('true');
    fireEvent.click(mail);
    expect(mail.getAttribute('aria-expanded')).toBe('false');
  });

  it('opens external items in a new tab without an opener', () => {
    renderAt(<NavContent items={tree} onItemClick={() => {}} />, '/dashboard');
    const docs = screen.getByRole('link', { name: /Docs/ });
    expect(docs.getAttribute('href')).toBe('https://docs.example.com');
    expect(docs.getAttribute('target')).toBe('_blank');
    expect(docs.getAttribute('rel')).toContain('noopener');
    expect(screen.getByText('New').className).toContain('badge');
  });

  it('reports clicks on items', () => {
    const onItemClick = vi.fn();
    renderAt(<NavContent items={tree} onItemClick={onItemClick} />, '/dashboard');
    fireEvent.click(screen.getByRole('link', { name: 'Home' }));
    expect(onItemClick).toHaveBeenCalledOnce();
  });
});
