import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as currentUser from '../features/auth/api/current-user.ts';
import { renderRoutes } from '../test-utils.tsx';
import { ProfileMenu } from './profile-panel.tsx';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const sampleAdmin: currentUser.CurrentUser = {
  id: 'u1',
  name: 'Alex Morgan',
  firstName: 'Alex',
  lastName: 'Morgan',
  email: 'admin@example.com',
  isAdmin: true,
  groups: [{ name: 'Dashboard' }],
  organization: { name: 'Example Organisation', siteName: 'example', siteUrl: 'https://example.localhost' },
  accountPortalUrl: '/profile',
};

function renderMenu() {
  return renderRoutes(
    [
      { path: '/dashboard', element: <ProfileMenu /> },
      { path: '/profile', element: <p>profile page</p> },
    ],
    '/dashboard',
  );
}

describe('ProfileMenu', () => {
  it('opens from the avatar with the name, e-mail and the admin link', () => {
    vi.spyOn(currentUser, 'useCurrentUser').mockReturnValue(sampleAdmin);
    renderMenu();
    fireEvent.click(screen.getByRole('button', { name: 'Open profile panel' }));
    const panel = screen.getByRole('dialog', { name: 'Profile' });
    expect(panel.textContent).toContain(sampleAdmin.name);
    expect(panel.textContent).toContain(sampleAdmin.email);
    expect(screen.getByRole('link', { name: 'Go to Admin Console' })).toHaveProperty(
      'pathname',
      '/dashboard',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Close profile panel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it("shows 'User name' and 'User email id' when missing, and no admin link for plain users", () => {
    vi.spyOn(currentUser, 'useCurrentUser').mockReturnValue({
      ...sampleAdmin,
      name: '',
      email: '',
      isAdmin: false,
      groups: [],
    });
    renderMenu();
    fireEvent.click(screen.getByRole('button', { name: 'Open profile panel' }));
    expect(screen.getByTestId('profile-name').textContent).toBe('User name');
    expect(screen.getByTestId('profile-email').textContent).toBe('User email id');
    expect(screen.queryByRole('link', { name: 'Go to Admin Console' })).toBeNull();
  });

  it("goes to /profile shortly after 'My account'", () => {
    vi.useFakeTimers();
    const { router } = renderMenu();
    fireEvent.click(screen.getByRole('button', { name: 'Open profile panel' }));
    fireEvent.click(screen.getByRole('button', { name: 'My account' }));
    expect(router.state.location.pathname).toBe('/dashboard');
    act(() => vi.advanceTimersByTime(500));
    expect(router.state.location.pathname).toBe('/profile');
  });

  it("goes to the operator's external account portal when one is set", () => {
    vi.useFakeTimers();
    vi.spyOn(currentUser, 'useCurrentUser').mockReturnValue({
      ...sampleAdmin,
      accountPortalUrl: 'https://accounts.example.com/me',
    });
    const assign = vi.fn();
    vi.spyOn(window, 'location', 'get').mockReturnValue({ ...window.location, assign });
    renderMenu();
    fireEvent.click(screen.getByRole('button', { name: 'Open profile panel' }));
    fireEvent.click(screen.getByRole('button', { name: 'My account' }));
    expect(assign).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(500));
    expect(assign).toHaveBeenCalledWith('https://accounts.example.com/me');
  });

  it('closes on Escape', () => {
    renderMenu();
    fireEvent.click(screen.getByRole('button', { name: 'Open profile panel' }));
    fireEvent.keyDown(document, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('isAdminFromGroups', () => {
  it('is true exactly when a group is named Dashboard', () => {
    expect(currentUser.isAdminFromGroups([{ name: 'Dashboard' }])).toBe(true);
    expect(currentUser.isAdminFromGroups([{ name: 'dashboard' }, { name: 'Sales' }])).toBe(false);
    expect(currentUser.isAdminFromGroups([])).toBe(false);
  });
});
