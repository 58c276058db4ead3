import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfirmDialog } from './confirm-dialog.tsx';

afterEach(cleanup);

/** A page with a trigger, the dialog, and an action whose outcome the test decides. */
function SuspendPage({ action }: { action: () => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [done, setDone] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Suspend
      </button>
      {done ? <p>Bob Lee is suspended</p> : null}
      <ConfirmDialog
        show={open}
        title="Suspend Bob Lee?"
        confirmLabel="Suspend"
        pendingLabel="Suspending…"
        pending={pending}
        error={error}
        errorTitle="The user was not suspended"
        onConfirm={() => {
          setPending(true);
          action().then(
            () => {
              setPending(false);
              setOpen(false);
              setDone(true);
            },
            (failure: Error) => {
              setPending(false);
              setError(failure);
            },
          );
        }}
        onCancel={() => {
          setOpen(false);
          setError(null);
        }}
      >
        <p>Bob Lee will be signed out everywhere and cannot sign in until reactivated.</p>
      </ConfirmDialog>
    </>
  );
}

function open() {
  const trigger = screen.getByRole('button', { name: 'Suspend' });
  trigger.focus();
  fireEvent.click(trigger);
  return { trigger, dialog: screen.getByRole('dialog', { name: 'Suspend Bob Lee?' }) };
}

describe('ConfirmDialog', () => {
  it('is a modal dialog named by its title and described by its text, with the focus inside', () => {
    render(<SuspendPage action={vi.fn()} />);
    const { dialog } = open();
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    const description = document.getElementById(dialog.getAttribute('aria-describedby') ?? '');
    expect(description?.textContent).toBe(
      'Bob Lee will be signed out everywhere and cannot sign in until reactivated.',
    );
    // Cancel first: Enter on a dialog nobody has read does nothing harmful.
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel' }));
    // The destructive button is red and says what it does.
    const confirm = dialog.querySelector('.btn-danger');
    expect(confirm?.textContent).toBe('Suspend');
  });

  it('closes on Escape without acting and gives the focus back to the trigger', async () => {
    const action = vi.fn(() => Promise.resolve());
    render(<SuspendPage action={action} />);
    const { trigger, dialog } = open();
    fireEvent.keyDown(dialog, { key: 'Escape', code: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(document.activeElement).toBe(trigger);
    expect(action).not.toHaveBeenCalled();
    expect(screen.queryByText('Bob Lee is suspended')).toBeNull();
  });

  it('closes on Cancel without acting', async () => {
    const action = vi.fn(() => Promise.resolve());
    render(<SuspendPage action={action} />);
    open();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(action).not.toHaveBeenCalled();
  });

  it('shows progress on the confirm button, then the server’s refusal inside the dialog', async () => {
    let refuse: (error: Error) => void = () => undefined;
    render(<SuspendPage action={() => new Promise((_, reject) => (refuse = reject))} />);
    const { dialog } = open();
    const confirm = dialog.querySelector('.btn-danger') as HTMLButtonElement;
    fireEvent.click(confirm);
    expect((await screen.findByRole('button', { name: 'Suspending…' })).hasAttribute('disabled')).toBe(true);
    refuse(new Error('Dashboard must keep at least one active member.'));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe(
      'The user was not suspendedDashboard must keep at least one active member.',
    );
    expect(screen.getByRole('dialog', { name: 'Suspend Bob Lee?' })).toBeTruthy();
    expect(within(dialog).getByRole('button', { name: 'Suspend' }).hasAttribute('disabled')).toBe(false);
  });

  it('does the action on confirm and closes', async () => {
    render(<SuspendPage action={() => Promise.resolve()} />);
    const { dialog } = open();
    fireEvent.click(dialog.querySelector('.btn-danger') as HTMLButtonElement);
    expect(await screen.findByText('Bob Lee is suspended')).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });
});
