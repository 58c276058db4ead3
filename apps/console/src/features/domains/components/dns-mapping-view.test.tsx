import type { DnsMapping, DnsMappingRecord } from '@atrium/contracts/domains';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderAt } from '../../../test-utils.tsx';
import { DnsMappingView } from './dns-mapping-view.tsx';

const ID = '22222222-2222-4222-8222-222222222222';
const DKIM = `v=DKIM1; k=rsa; p=${'A'.repeat(392)}`;
const ZONE = `$ORIGIN shop.example.\n$TTL 3600\natrium._domainkey\t3600\tIN\tTXT\t"${DKIM.slice(0, 255)}" "${DKIM.slice(255)}"\n`;

const record = (overrides: Partial<DnsMappingRecord>): DnsMappingRecord => ({
  purpose: 'mx',
  host: 'shop.example',
  type: 'MX',
  value: '10 mail.atrium.test',
  valueStrings: ['10 mail.atrium.test'],
  status: 'missing',
  found: [],
  problem: null,
  fix: null,
  ...overrides,
});

const mapping: DnsMapping = {
  domain: {
    id: ID,
    name: 'shop.example',
    displayName: 'shop.example',
    state: 'verified',
    isPrimary: true,
    createdAt: '2026-11-01T00:00:00.000Z',
    verifiedAt: '2026-11-01T00:00:00.000Z',
    lastCheckedAt: null,
    lastCheck: null,
  },
  records: [
    record({}),
    record({
      purpose: 'dkim',
      host: 'atrium._domainkey.shop.example',
      type: 'TXT',
      value: DKIM,
      valueStrings: [DKIM.slice(0, 255), DKIM.slice(255)],
    }),
  ],
  checkedAt: '2026-11-29T10:00:00.000Z',
};

function mockServer() {
  const calls: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      calls.push(url);
      if (url === `/api/domains/${ID}/dns-records`) {
        return new Response(JSON.stringify(mapping), { headers: { 'content-type': 'application/json' } });
      }
      if (url === `/api/domains/${ID}/zone-file`) {
        return new Response(ZONE, { headers: { 'content-type': 'text/dns; charset=utf-8' } });
      }
      return new Response(JSON.stringify({ error: { code: 'not_found', message: 'nope' } }), { status: 404 });
    }),
  );
  return calls;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('DnsMappingView', () => {
  it('offers the zone file as a download of <domain>.zone from the API', async () => {
    mockServer();
    renderAt(<DnsMappingView domainId={ID} />);
    const link = await screen.findByRole('link', { name: 'Download zone file' });
    expect(link.getAttribute('href')).toBe(`/api/domains/${ID}/zone-file`);
    expect(link.getAttribute('download')).toBe('shop.example.zone');
  });

  it('copies every record as the zone-file block with Copy all', async () => {
    mockServer();
    const writeText = vi.fn(async () => undefined);
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    renderAt(<DnsMappingView domainId={ID} />);
    // Disabled until the zone file has loaded, then the copy button itself.
    const enabled = await waitFor(() => {
      const button = screen.getByRole<HTMLButtonElement>('button', {
        name: 'Copy all records as a zone file',
      });
      expect(button.disabled).toBe(false);
      return button;
    });
    expect(enabled.textContent).toBe('Copy all');
    fireEvent.click(enabled);
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(ZONE));
    expect(await screen.findByText('Copied')).toBeTruthy();
  });

  it('shows the DKIM key as one string, with the note about 255-character limits', async () => {
    mockServer();
    renderAt(<DnsMappingView domainId={ID} />);
    const dkim = await screen.findByRole('listitem', { name: 'DKIM key' });
    const value = within(dkim).getByText(DKIM);
    expect(value.tagName).toBe('CODE');
    expect(within(dkim).queryByText(/^"v=DKIM1/)).toBeNull();
    const note = within(dkim).getByText(
      'Some DNS hosts limit a text value to 255 characters: paste it whole; if yours refuses, split it into quoted strings of 255 characters at most (the zone file does this for you).',
    );
    expect(value.getAttribute('aria-describedby')).toBe(note.id);
    // A short value has no such note.
    const mx = screen.getByRole('listitem', { name: 'Mail exchanger (MX)' });
    expect(within(mx).queryByText(/Some DNS hosts limit/)).toBeNull();
  });

  it('looks every record up again with Check all records now', async () => {
    const calls = mockServer();
    renderAt(<DnsMappingView domainId={ID} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Check all records now' }));
    await waitFor(() =>
      expect(calls.filter((url) => url === `/api/domains/${ID}/dns-records`)).toHaveLength(2),
    );
    expect(await screen.findByText(/0 of 2 records in place/)).toBeTruthy();
  });
});
