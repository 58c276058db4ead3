import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderAt } from '../../../test-utils.tsx';
import { Breadcrumbs } from './breadcrumbs.tsx';

afterEach(cleanup);

function crumbs(): string[] {
  const nav = screen.getByRole('navigation', { name: 'Breadcrumb' });
  return within(nav)
    .getAllByRole('listitem')
    .map((li) => li.textContent ?? '');
}

describe('Breadcrumbs', () => {
  it('shows the home icon, the group title and the item title', async () => {
    renderAt(<Breadcrumbs />, '/users');
    expect(await screen.findByRole('link', { name: 'Home' })).toHaveProperty('pathname', '/dashboard');
    expect(crumbs()).toEqual(['', 'Admin Console', 'Users']);
    expect(screen.getByText('Users').closest('[aria-current="page"]')).not.toBeNull();
  });

  it('sets the document title from the item title', async () => {
    renderAt(<Breadcrumbs />, '/domain');
    await screen.findByRole('navigation', { name: 'Breadcrumb' });
    expect(document.title).toBe('Domain | Atrium');
  });

  it('follows the seed spec titles for every sidebar entry; the document title is capitalised', async () => {
    renderAt(<Breadcrumbs />, '/organization');
    await screen.findByRole('navigation', { name: 'Breadcrumb' });
    expect(crumbs()).toEqual(['', 'Admin Console', 'organization']);
    expect(document.title).toBe('Organization | Atrium');
  });

  it('shows a secondary page under its sidebar entry', async () => {
    renderAt(<Breadcrumbs />, '/adduser');
    await screen.findByRole('navigation', { name: 'Breadcrumb' });
    expect(crumbs()).toEqual(['', 'Admin Console', 'Users', 'Add a user']);
    expect(screen.getByRole('link', { name: 'Users' })).toHaveProperty('pathname', '/users');
    expect(document.title).toBe('Add a user | Atrium');
  });

  it('titles the catch-all as the dashboard', async () => {
    renderAt(<Breadcrumbs />, '/whatever');
    await screen.findByRole('navigation', { name: 'Breadcrumb' });
    expect(crumbs()).toEqual(['', 'Admin Console', 'Admin home']);
    expect(document.title).toBe('Admin home | Atrium');
  });
});
