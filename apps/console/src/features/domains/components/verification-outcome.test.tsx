import type { VerificationCheck } from '@atrium/contracts/domains';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { VerificationOutcome } from './verification-outcome.tsx';

const base = { found: [] as string[], failure: null, checkedAt: '2026-11-22T05:00:00.000Z' };

const checks: Array<[string, VerificationCheck, string]> = [
  ['verified', { ...base, outcome: 'verified', message: 'example.com is verified.' }, 'Domain verified'],
  [
    'no record',
    {
      ...base,
      outcome: 'no_record',
      message:
        'No TXT record was found at example.com. DNS changes can take time to propagate; try again in a few minutes.',
    },
    'No TXT record found yet',
  ],
  [
    'timeout',
    {
      ...base,
      outcome: 'lookup_failed',
      failure: 'timeout',
      message: 'The DNS lookup for example.com failed: the DNS server did not answer within 2 seconds.',
    },
    'DNS lookup timed out',
  ],
  [
    'server failure',
    {
      ...base,
      outcome: 'lookup_failed',
      failure: 'server_failure',
      message: 'The DNS lookup for example.com failed: the DNS server reported a server failure (SERVFAIL).',
    },
    'DNS server failure',
  ],
];

describe('VerificationOutcome', () => {
  it.each(checks)(
    'shows the %s outcome with its own heading and the server’s message',
    (_name, check, heading) => {
      render(<VerificationOutcome check={check} />);
      expect(screen.getByRole('heading', { name: heading })).toBeTruthy();
      expect(screen.getByText(check.message)).toBeTruthy();
    },
  );

  it('lists what was found when the record does not match', () => {
    render(
      <VerificationOutcome
        check={{
          ...base,
          outcome: 'mismatch',
          found: ['atrium-verification=old', 'v=spf1 -all'],
          message:
            'TXT records were found at example.com, but none is atrium-verification=abc. Found: "atrium-verification=old", "v=spf1 -all".',
        }}
      />,
    );
    expect(screen.getByRole('heading', { name: 'The TXT record does not match' })).toBeTruthy();
    expect(
      screen.getByText('TXT records were found at example.com, but none is atrium-verification=abc.'),
    ).toBeTruthy();
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'atrium-verification=old',
      'v=spf1 -all',
    ]);
  });
});
