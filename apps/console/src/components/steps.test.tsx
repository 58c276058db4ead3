import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Steps } from './steps.tsx';

afterEach(cleanup);

describe('Steps', () => {
  it('marks the current step for assistive technology and numbers the others', () => {
    render(
      <Steps
        label="Sign-up steps"
        items={[
          { key: 'a', label: 'Organisation', state: 'done' },
          { key: 'b', label: 'E-mail', state: 'current' },
          { key: 'c', label: 'Verify', state: 'todo' },
        ]}
      />,
    );
    const list = screen.getByRole('list', { name: 'Sign-up steps' });
    const items = list.querySelectorAll('li');
    expect(items[1]!.getAttribute('aria-current')).toBe('step');
    expect(items[0]!.getAttribute('aria-current')).toBeNull();
    expect(items[2]!.textContent).toContain('3');
    expect(items[0]!.textContent).toBe('Organisation, done');
  });

  it('shows every label whole and says when a step was skipped', () => {
    render(
      <Steps
        label="Setup steps"
        items={[
          { key: 'a', label: 'Organisation profile', state: 'done' },
          { key: 'b', label: 'Add users', state: 'skipped' },
          { key: 'c', label: 'Choose apps', state: 'current' },
        ]}
      />,
    );
    const items = screen.getByRole('list', { name: 'Setup steps' }).querySelectorAll('li');
    expect(items[1]!.textContent).toBe('Add users, Skipped');
    expect(items[1]!.className).toContain('is-skipped');
    expect(screen.getByText('Organisation profile')).toBeTruthy();
  });
});
