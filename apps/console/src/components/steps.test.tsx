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
    expect(screen.getByText('Step 2 of 3: E-mail')).toBeTruthy();
  });
});
