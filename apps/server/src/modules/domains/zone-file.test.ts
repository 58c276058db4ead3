import { describe, expect, it } from 'vitest';
import { zoneFile, zoneLine } from './zone-file.ts';

const origin = 'shop.example';
const line = (host: string, type: 'TXT' | 'MX' | 'CNAME' | 'SRV', value: string) =>
  zoneLine(origin, { host, type, value });

describe('zone file', () => {
  it('starts with $ORIGIN and $TTL, writes a comment above each record, and ends with a newline', () => {
    const text = zoneFile('Shop.Example.', [
      { host: 'shop.example', type: 'MX', value: '10 mail.atrium.test', comment: 'Mail exchanger' },
      { host: '_dmarc.shop.example', type: 'TXT', value: 'v=DMARC1; p=quarantine' },
    ]);
    expect(text.split('\n')).toEqual([
      '; DNS records for shop.example, from Atrium.',
      '; Import this file at your DNS host, or paste its records into your zone.',
      '$ORIGIN shop.example.',
      '$TTL 3600',
      '; Mail exchanger',
      '@\t3600\tIN\tMX\t10 mail.atrium.test.',
      '_dmarc\t3600\tIN\tTXT\t"v=DMARC1; p=quarantine"',
      '',
    ]);
  });

  it('writes owner names relative to the origin, and a name outside it absolute', () => {
    expect(line('shop.example', 'TXT', 'a')).toMatch(/^@\t/);
    expect(line('atrium._domainkey.shop.example', 'TXT', 'a')).toMatch(/^atrium\._domainkey\t/);
    expect(line('_imaps._tcp.SHOP.example.', 'TXT', 'a')).toMatch(/^_imaps\._tcp\t/);
    // A name that only ends in the same letters is not under the origin.
    expect(line('workshop.example', 'TXT', 'a')).toMatch(/^workshop\.example\.\t/);
  });

  it('writes MX with its priority, SRV with priority, weight and port, and every target absolute', () => {
    expect(line('shop.example', 'MX', '10 mail.atrium.test')).toBe('@\t3600\tIN\tMX\t10 mail.atrium.test.');
    expect(line('_submission._tcp.shop.example', 'SRV', '0 1 587 mail.atrium.test')).toBe(
      '_submission._tcp\t3600\tIN\tSRV\t0 1 587 mail.atrium.test.',
    );
    expect(line('apps.shop.example', 'CNAME', 'acme.atrium.test')).toBe(
      'apps\t3600\tIN\tCNAME\tacme.atrium.test.',
    );
    // Already absolute: not a second dot.
    expect(line('autoconfig.shop.example', 'CNAME', 'acme.atrium.test.')).toBe(
      'autoconfig\t3600\tIN\tCNAME\tacme.atrium.test.',
    );
  });

  it('writes a TXT value longer than 255 bytes as quoted strings of 255 bytes at most, on one line', () => {
    const key = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'.padEnd(392, 'Q') + 'IDAQAB';
    const value = `v=DKIM1; k=rsa; p=${key}`;
    expect(value.length).toBe(416);
    const written = line('atrium._domainkey.shop.example', 'TXT', value);
    expect(written.split('\n')).toHaveLength(1);
    const strings = [...written.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
    expect(strings.map((s) => s.length)).toEqual([255, 161]);
    expect(strings.join('')).toBe(value);
    expect(written).toBe(`atrium._domainkey\t3600\tIN\tTXT\t"${value.slice(0, 255)}" "${value.slice(255)}"`);
  });

  it('keeps a value of exactly 255 bytes in one string', () => {
    const value = 'x'.repeat(255);
    expect(line('shop.example', 'TXT', value)).toBe(`@\t3600\tIN\tTXT\t"${value}"`);
  });

  it('escapes quotes and backslashes, and writes bytes outside printable ASCII as \\DDD', () => {
    expect(line('shop.example', 'TXT', 'say "hi" \\ é')).toBe(
      '@\t3600\tIN\tTXT\t"say \\"hi\\" \\\\ \\195\\169"',
    );
  });

  it('counts bytes, not characters, and never cuts a character in two', () => {
    // 254 bytes of ASCII, then a two-byte character: it goes whole into the second string.
    const written = line('shop.example', 'TXT', `${'a'.repeat(254)}é`);
    expect(written).toBe(`@\t3600\tIN\tTXT\t"${'a'.repeat(254)}" "\\195\\169"`);
  });

  it('takes another TTL when asked', () => {
    expect(zoneLine(origin, { host: 'shop.example', type: 'TXT', value: 'a' }, 300)).toBe(
      '@\t300\tIN\tTXT\t"a"',
    );
  });
});
