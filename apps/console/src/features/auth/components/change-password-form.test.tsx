import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderAt } from '../../../test-utils.tsx';
import { ChangePasswordForm } from './change-password-form.tsx';

// Issue 42 item 3: a password change ends the app passwords; the form says which devices will stop
// syncing, and the success message names the ones that did, with a way to set them up again.

const json = (body: unknown) =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });

const appPassword = (name: string, i: number) => ({
  id: `00000000-0000-4000-8000-00000000000${i}`,
  name,
  createdAt: '2026-01-01T00:00:00.000Z',
  lastUsedAt: null,
});

function mockServer(names: string[]) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url === '/api/profile/app-passwords') return json({ appPasswords: names.map(appPassword) });
      if (url === '/api/profile/password' && init?.method === 'POST') {
        const ended = names;
        names = [];
        return json({
          message: `Your password was changed. Your other sessions were signed out, and ${ended.length} devices (${ended.join(', ')}) were disconnected.`,
          disconnectedDevices: ended,
        });
      }
      return json({ sessions: [] });
    }),
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('ChangePasswordForm', () => {
  it('lists the devices that will be disconnected, then names them with a way back to set-up', async () => {
    mockServer(['Phone', 'Laptop']);
    renderAt(<ChangePasswordForm />);
    expect(
      await screen.findByText('These devices will stop syncing until you set them up again: Phone, Laptop'),
    ).toBeTruthy();

    fireEvent.change(screen.getByLabelText('Current password'), { target: { value: 'old passphrase 41' } });
    fireEvent.change(screen.getByLabelText('New password'), {
      target: { value: 'a brand new passphrase 42' },
    });
    fireEvent.change(screen.getByLabelText('New password again'), {
      target: { value: 'a brand new passphrase 42' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Change password' }));

    expect(
      await screen.findByText(
        'Your password was changed. Your other sessions were signed out, and 2 devices (Phone, Laptop) were disconnected.',
      ),
    ).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Set up a device again' })).toHaveProperty(
      'pathname',
      '/profile/devices',
    );
    // The list refreshed: no device is left to warn about.
    await vi.waitFor(() => expect(screen.queryByTestId('password-devices')).toBeNull());
  });

  it('warns of no device when there is none', async () => {
    mockServer([]);
    renderAt(<ChangePasswordForm />);
    await vi.waitFor(() =>
      expect(vi.mocked(fetch).mock.calls.map(([url]) => url)).toContain('/api/profile/app-passwords'),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(screen.queryByTestId('password-devices')).toBeNull();
  });
});
