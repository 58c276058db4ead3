import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderAt } from '../../../test-utils.tsx';
import { AddUserForm } from './add-user-form.tsx';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function mockServer(onCreate: (body: Record<string, unknown>) => Response, mailHosted: string[] = []) {
  const calls: Array<{ url: string; body?: Record<string, unknown> }> = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const body = init?.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : undefined;
      calls.push({ url, ...(body ? { body } : {}) });
      if (url.startsWith('/api/users/email-domains'))
        return json(200, { domains: ['acme.test'], anyDomain: false, mailHosted });
      if (url.startsWith('/api/groups')) {
        return json(200, {
          groups: [
            {
              id: '11111111-1111-4111-8111-111111111111',
              name: 'Dashboard',
              isSystem: true,
              memberCount: 1,
              createdAt: '2026-01-01T00:00:00Z',
            },
          ],
        });
      }
      if (url === '/api/users' && init?.method === 'POST') return onCreate(body!);
      return json(404, { error: { code: 'not_found', message: 'nope' } });
    }),
  );
  return calls;
}

async function fillForm() {
  fireEvent.change(screen.getByLabelText('First name'), { target: { value: 'Grace' } });
  fireEvent.change(screen.getByLabelText('Last name'), { target: { value: 'Hopper' } });
  fireEvent.change(screen.getByLabelText('Part before the @'), { target: { value: 'grace' } });
  await screen.findByRole('option', { name: 'acme.test' });
  fireEvent.change(screen.getByLabelText('Domain'), { target: { value: 'acme.test' } });
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('AddUserForm', () => {
  it('checks the fields with the shared schema before sending anything', async () => {
    const calls = mockServer(() => json(500, {}));
    renderAt(<AddUserForm onCreated={() => undefined} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Add user' }));
    expect(await screen.findByText('Enter the first name')).toBeTruthy();
    expect(screen.getByText('Enter the last name')).toBeTruthy();
    expect(calls.some((c) => c.url === '/api/users')).toBe(false);
  });

  it('shows the server’s field error beside the field', async () => {
    mockServer(() =>
      json(400, {
        error: {
          code: 'validation_failed',
          message: 'This address is already in use',
          fields: { localPart: 'This address is already in use' },
        },
      }),
    );
    renderAt(<AddUserForm onCreated={() => undefined} />);
    await fillForm();
    fireEvent.click(screen.getByRole('button', { name: 'Add user' }));
    expect(await screen.findByText('This address is already in use')).toBeTruthy();
  });

  it('sends an invitation by default, with the chosen groups, and reports the new user', async () => {
    const onCreated = vi.fn();
    const calls = mockServer((body) =>
      json(201, {
        invited: true,
        mailSent: true,
        user: { id: '22222222-2222-4222-8222-222222222222', ...body },
      }),
    );
    renderAt(<AddUserForm onCreated={onCreated} />);
    await fillForm();
    fireEvent.click(await screen.findByLabelText('Dashboard (administrators)'));
    fireEvent.click(screen.getByRole('button', { name: 'Add user' }));
    await waitFor(() => expect(onCreated).toHaveBeenCalled());
    const sent = calls.find((c) => c.url === '/api/users')!.body!;
    expect(sent).toMatchObject({
      firstName: 'Grace',
      lastName: 'Hopper',
      localPart: 'grace',
      domain: 'acme.test',
      credential: 'invitation',
      groupIds: ['11111111-1111-4111-8111-111111111111'],
    });
    expect(sent.password).toBeUndefined();
  });

  it('on a domain whose mail Atrium hosts, chooses a password without a personal address and says why', async () => {
    const onCreated = vi.fn();
    const calls = mockServer(
      (body) =>
        json(201, {
          invited: true,
          mailSent: true,
          invitationSentTo: body.personalEmail,
          user: { id: '22222222-2222-4222-8222-222222222222', ...body },
        }),
      ['acme.test'],
    );
    renderAt(<AddUserForm onCreated={onCreated} />);
    await fillForm();
    const invitation = screen.getByLabelText(/E-mail an invitation/) as HTMLInputElement;
    const password = screen.getByLabelText(
      'Set a first password now and give it to the user',
    ) as HTMLInputElement;
    await waitFor(() => expect(password.checked).toBe(true));
    expect(screen.getByTestId('no-invitation-address').textContent).toContain(
      'grace@acme.test has no mailbox until the person signs in, and no personal address is given',
    );
    // A personal address: the invitation is the choice again, and goes there.
    fireEvent.change(screen.getByLabelText('Personal email (for the invitation)'), {
      target: { value: 'Grace@Home.example' },
    });
    await waitFor(() => expect(invitation.checked).toBe(true));
    expect(screen.queryByTestId('no-invitation-address')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Add user' }));
    await waitFor(() => expect(onCreated).toHaveBeenCalled());
    expect(calls.find((c) => c.url === '/api/users')!.body).toMatchObject({
      credential: 'invitation',
      personalEmail: 'grace@home.example',
    });
  });
});
