import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderAt } from '../../../test-utils.tsx';
import { NotificationsMenu } from './notifications-menu.tsx';

const unreadOne = {
  id: '11111111-1111-4111-8111-111111111111',
  kind: 'domain.verified',
  title: 'example.com is verified',
  body: 'Users can now get addresses on it.',
  link: '/domain',
  read: false,
  createdAt: new Date().toISOString(),
};
const readOne = {
  ...unreadOne,
  id: '22222222-2222-4222-8222-222222222222',
  title: 'Chat was installed',
  read: true,
};

/** A fake API: the list, and the three changes; records what the menu sends. */
function stubApi() {
  let items = [unreadOne, readOne];
  const calls: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      calls.push(`${init.method} ${url}`);
      if (init.method === 'POST' && url.endsWith('/read-all'))
        items = items.map((n) => ({ ...n, read: true }));
      else if (init.method === 'POST')
        items = items.map((n) => (url.includes(n.id) ? { ...n, read: true } : n));
      else if (init.method === 'DELETE') items = [];
      const unreadCount = items.filter((n) => !n.read).length;
      const body =
        init.method === 'GET'
          ? { items, nextCursor: null, unreadCount, totalCount: items.length }
          : { unreadCount, deleted: 2 };
      return new Response(JSON.stringify(body), {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
      });
    }),
  );
  return calls;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('notifications dropdown', () => {
  it('shows the unread count and the newest notifications', async () => {
    stubApi();
    renderAt(<NotificationsMenu />, '/dashboard');
    const toggle = await screen.findByRole('button', { name: 'Notifications, 1 unread' });
    expect(screen.getByTestId('notifications-badge').textContent).toBe('1');
    fireEvent.click(toggle);
    expect(await screen.findByRole('link', { name: 'example.com is verified' })).toHaveProperty(
      'pathname',
      '/domain',
    );
    expect(screen.getByText('Chat was installed')).toBeTruthy();
    for (const name of ['mark as read', 'clear all', 'show all']) {
      expect(screen.getByRole('button', { name })).toBeTruthy();
    }
  });

  it('marks one as read, then clears all', async () => {
    const calls = stubApi();
    renderAt(<NotificationsMenu />, '/dashboard');
    fireEvent.click(await screen.findByRole('button', { name: 'Notifications, 1 unread' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Mark “example.com is verified” as read' }));
    await screen.findByRole('button', { name: 'Notifications' });
    expect(calls).toContain(`POST /api/notifications/${unreadOne.id}/read`);
    expect(screen.queryByTestId('notifications-badge')).toBeNull();

    // 'clear all' asks first, naming how many go; Cancel leaves them, the red button clears them.
    fireEvent.click(screen.getByRole('button', { name: 'clear all' }));
    let dialog = await screen.findByRole('dialog', { name: 'Clear all notifications?' });
    expect(dialog.textContent).toContain('All 2 notifications will be removed.');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls).not.toContain('DELETE /api/notifications');

    fireEvent.click(screen.getByRole('button', { name: 'Notifications' }));
    fireEvent.click(await screen.findByRole('button', { name: 'clear all' }));
    dialog = await screen.findByRole('dialog', { name: 'Clear all notifications?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Clear all' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls).toContain('DELETE /api/notifications');
    fireEvent.click(screen.getByRole('button', { name: 'Notifications' }));
    await screen.findByTestId('notifications-empty');
  });

  it('marks all as read', async () => {
    const calls = stubApi();
    renderAt(<NotificationsMenu />, '/dashboard');
    fireEvent.click(await screen.findByRole('button', { name: 'Notifications, 1 unread' }));
    fireEvent.click(screen.getByRole('button', { name: 'mark as read' }));
    await waitFor(() => expect(calls).toContain('POST /api/notifications/read-all'));
    await screen.findByRole('button', { name: 'Notifications' });
  });
});
