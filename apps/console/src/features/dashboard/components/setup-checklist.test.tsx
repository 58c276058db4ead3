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
    renderAt(<SetupChecklist setup={{ completed: true, openSteps: [], mailSteps: [] }} />);
    expect(await screen.findByText('Every setup step is done.')).toBeTruthy();
    // No step to start: the one link is to your own devices.
    expect(screen.queryAllByRole('link').map((link) => link.textContent)).toEqual([
      'Set up mail, calendars and contacts on your phone or computer',
    ]);
  });

  it('keeps “Publish your mail records” open, with what is missing and a link to the records', async () => {
    renderAt(
      <SetupChecklist
        setup={{
          completed: true,
          openSteps: [],
          mailSteps: [
            {
              step: 'mail_records',
              done: false,
              detail: '3 of 11 records are not published yet for example.com.',
              domainId: 'd1',
            },
            { step: 'mail_flowing', done: false, detail: 'No message has arrived yet.', domainId: null },
          ],
        }}
      />,
    );
    const items = await screen.findAllByRole('listitem');
    expect(items.map((item) => item.textContent)).toEqual([
      expect.stringContaining(
        'Publish your mail records (not done yet)3 of 11 records are not published yet',
      ),
      expect.stringContaining('Mail is flowing (not done yet)No message has arrived yet.'),
    ]);
    const link = within(items[0]!).getByRole('link', { name: 'Open records: Publish your mail records' });
    expect(link).toHaveProperty('pathname', '/d-verify');
    expect(link).toHaveProperty('search', '?id=d1');
    expect(link).toHaveProperty('hash', '#dns-mapping');
    // Nothing to press for the first message: it arrives.
    expect(within(items[1]!).queryByRole('link')).toBeNull();
    expect(screen.queryByText('Every setup step is done.')).toBeNull();
  });

  it('shows a mail step done beside one still open, and is done only when both are', async () => {
    const records = {
      step: 'mail_records',
      done: true,
      detail: 'Every record is in place for example.com.',
      domainId: null,
    } as const;
    const flowing = {
      step: 'mail_flowing',
      done: false,
      detail: 'No message has arrived yet.',
      domainId: null,
    } as const;
    const { unmount } = renderAt(
      <SetupChecklist setup={{ completed: true, openSteps: [], mailSteps: [records, flowing] }} />,
    );
    expect((await screen.findByTestId('setup-step-mail_records')).textContent).toContain(
      'Publish your mail records (done)',
    );
    expect(screen.getByTestId('setup-step-mail_flowing').textContent).toContain('(not done yet)');
    expect(screen.queryByText('Every setup step is done.')).toBeNull();
    unmount();
    renderAt(
      <SetupChecklist
        setup={{
          completed: true,
          openSteps: [],
          mailSteps: [records, { ...flowing, done: true, detail: 'Your first message has arrived.' }],
        }}
      />,
    );
    expect(await screen.findByText('Every setup step is done.')).toBeTruthy();
  });

  it('does not say every step is done before the mail steps are known', async () => {
    renderAt(<SetupChecklist setup={{ completed: true, openSteps: [] }} />);
    expect(await screen.findByText('Every step of the setup wizard is done.')).toBeTruthy();
    expect(screen.queryByText('Every setup step is done.')).toBeNull();
  });
});
