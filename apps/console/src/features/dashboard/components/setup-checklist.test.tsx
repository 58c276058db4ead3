import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderAt } from '../../../test-utils.tsx';
import { SetupChecklist } from './setup-checklist.tsx';

afterEach(cleanup);

describe('SetupChecklist', () => {
  it('lists each open step with a link to where it is done', async () => {
    renderAt(<SetupChecklist setup={{ completed: true, openSteps: ['verify', 'users'] }} />);
    const items = await screen.findAllByRole('listitem');
    expect(items.map((item) => item.textContent)).toEqual([
      expect.stringContaining('Verify your domain'),
      expect.stringContaining('Add users'),
    ]);
    // The verification itself (/d-verify opens the first domain still to verify).
    expect(within(items[0]!).getByRole('link', { name: 'Start: Verify your domain' })).toHaveProperty(
      'pathname',
      '/d-verify',
    );
    expect(within(items[1]!).getByRole('link', { name: 'Start: Add users' })).toHaveProperty(
      'pathname',
      '/adduser',
    );
  });

  it('points to setting up your own devices, open steps or not (issue 42 item 5)', async () => {
    for (const openSteps of [['users'] as const, []]) {
      const { unmount } = renderAt(<SetupChecklist setup={{ completed: true, openSteps: [...openSteps] }} />);
      expect(
        await screen.findByRole('link', {
          name: 'Set up mail, calendars and contacts on your phone or computer',
        }),
      ).toHaveProperty('pathname', '/profile/devices');
      unmount();
    }
  });

  it('says when every step is done', async () => {
    renderAt(<SetupChecklist setup={{ completed: true, openSteps: [] }} />);
    expect(await screen.findByText('Every setup step is done.')).toBeTruthy();
    // No step to start: the one link is to your own devices.
    expect(screen.queryAllByRole('link').map((link) => link.textContent)).toEqual([
      'Set up mail, calendars and contacts on your phone or computer',
    ]);
  });
});
