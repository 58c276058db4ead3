import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderAt } from '../../../test-utils.tsx';
import { DeviceSetup } from './device-setup.tsx';

// Issue 42 item 5: nothing offered while MAIL_HOST is not set; a second device of a kind is
// offered a name the server takes.

const json = (body: unknown) =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });

function mockServer(available: boolean, names: string[]) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (url === '/api/profile/devices') return json({ available });
      if (url === '/api/profile/app-passwords') {
        return json({
          appPasswords: names.map((name, i) => ({
            id: `00000000-0000-4000-8000-00000000000${i}`,
            name,
            createdAt: '2026-01-01T00:00:00.000Z',
            lastUsedAt: null,
          })),
        });
      }
      return new Response('{}', { status: 404, headers: { 'content-type': 'application/json' } });
    }),
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('DeviceSetup', () => {
  it('says devices are not set up on this server instead of offering the form', async () => {
    mockServer(false, []);
    renderAt(<DeviceSetup />);
    expect(
      await screen.findByText(
        'Mail and calendar apps on devices are not set up on this server yet: ask your administrator (the operator sets MAIL_HOST).',
      ),
    ).toBeTruthy();
    expect(screen.queryByLabelText('Device name')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Set up' })).toBeNull();
  });

  it('suggests the first free name of the kind against the app passwords in use', async () => {
    mockServer(true, ['iPhone', 'Thunderbird', 'Thunderbird 2']);
    renderAt(<DeviceSetup />);
    const name = (await screen.findByLabelText('Device name')) as HTMLInputElement;
    await waitFor(() => expect(name.value).toBe('iPhone 2'));
    fireEvent.click(screen.getByRole('radio', { name: 'Thunderbird' }));
    await waitFor(() => expect(name.value).toBe('Thunderbird 3'));
    fireEvent.click(screen.getByRole('radio', { name: 'Outlook' }));
    await waitFor(() => expect(name.value).toBe('Outlook'));
    // A name of their own is kept when the kind changes.
    fireEvent.change(name, { target: { value: 'Work laptop' } });
    fireEvent.click(screen.getByRole('radio', { name: 'Other' }));
    expect(name.value).toBe('Work laptop');
  });
});
