import { cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderAt } from '../../../test-utils.tsx';
import { CodeStep } from './code-step.tsx';

afterEach(cleanup);

const props = {
  uid: 'uid-1',
  email: 'ada@example.com',
  resendAvailableAt: '2026-11-23T10:00:00.000Z',
  onUseAnotherAccount: () => undefined,
};

describe('the sign-in code step', () => {
  it('says the code was sent when the mail server took it', () => {
    renderAt(<CodeStep {...props} codeSent />);
    expect(screen.getByText(/We sent a 6-digit code to/).textContent).toContain('ada@example.com');
  });

  it('says plainly that the code could not be sent yet and will arrive, never that it was sent', () => {
    renderAt(<CodeStep {...props} codeSent={false} />);
    expect(screen.getByText(/We could not send the code to/).textContent).toContain(
      'We could not send the code to ada@example.com yet. It will arrive shortly',
    );
    expect(screen.queryByText(/We sent a 6-digit code/)).toBeNull();
  });
});
