import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  addressRefusedIn,
  AddressRefused,
  guardedDispatcher,
  HostNotFound,
  judgeAddress,
  parseAddress,
  parseIPv4,
  refusedWithoutLookup,
  resolveAllowed,
  type AddressPolicy,
} from './network-policy.ts';

// This host, as the tests see it: 192.0.2.2 and fd00::2 on its network interface.
const HOST = ['127.0.0.1', '::1', '192.0.2.2', 'fd00::2', 'fe80::fc:ff:fe00:1%eth0'];
const strict: AddressPolicy = { allowPrivate: false, hostAddresses: () => HOST };
const lenient: AddressPolicy = { allowPrivate: true, hostAddresses: () => HOST };
// A host whose own address is public (a VPS): refused as this host's, allowed with the setting.
const vps: AddressPolicy = { allowPrivate: false, hostAddresses: () => ['93.184.216.34'] };

const judged = (text: string, policy = strict) => {
  const parsed = parseAddress(text);
  if (!parsed) throw new Error(`${text} does not parse`);
  return judgeAddress(parsed, policy)?.kind ?? null;
};
const noLookup = () => Promise.reject(new Error('no lookup expected'));

describe('network policy: parsing', () => {
  it('reads every IPv4 form a resolver or URL parser accepts', () => {
    const loopback = 0x7f000001;
    for (const form of [
      '127.0.0.1',
      '127.1',
      '127.0.1',
      '0x7f000001',
      '0X7F000001',
      '2130706433',
      '0177.0.0.1',
      '0x7f.1',
      '017700000001',
    ])
      expect(parseIPv4(form), form).toBe(loopback);
    expect(parseIPv4('0')).toBe(0);
    for (const notIp of [
      '256.0.0.1',
      '1.2.3.4.5',
      '08.0.0.1',
      '1..2',
      '4294967296',
      'imap.example.com',
      'cafe',
      '',
    ])
      expect(parseIPv4(notIp), notIp).toBeNull();
  });

  it('reads IPv6 with or without brackets, zones and dotted tails; names are not addresses', () => {
    expect(parseAddress('[::1]')).toEqual({ family: 6, value: 1n });
    expect(parseAddress('::ffff:192.0.2.2')).toEqual(parseAddress('[::ffff:c000:202]'));
    expect(parseAddress('fe80::1%eth0')).toEqual({ family: 6, value: (0xfe80n << 112n) | 1n });
    expect(parseAddress('2001:db8::1')).toEqual({ family: 6, value: (0x20010db8n << 96n) | 1n });
    for (const name of ['localhost', 'imap.example.com', 'cafe.be', 'deadbeef', ':::1', '[::1'])
      expect(parseAddress(name), name).toBeNull();
  });
});

describe('network policy: judging addresses', () => {
  it('refuses loopback in every IPv4 and IPv6 spelling', () => {
    for (const form of [
      '127.0.0.1',
      '127.1',
      '0x7f000001',
      '2130706433',
      '0177.0.0.1',
      '127.255.255.254',
      '::1',
      '[::1]',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '[::ffff:0:7f00:1]',
      '::ffff:0:127.0.0.1',
      '[::127.0.0.1]',
      '[::7f00:1]',
      '[64:ff9b::7f00:1]',
      '64:ff9b::127.0.0.1',
      '2002:7f00:1::',
    ])
      expect(judged(form), form).toBe('loopback');
  });

  it('refuses this host’s own addresses, however written', () => {
    // 192.0.2.2 is also a documentation address; as this host's address it is named so (and the
    // private-network setting allows it, as it allows loopback).
    for (const form of [
      '192.0.2.2',
      '[::ffff:192.0.2.2]',
      '[::ffff:c000:202]',
      '::c000:202',
      '64:ff9b::c000:202',
      'fd00::2',
    ])
      expect(judged(form), form).toBe('this-host');
    expect(judged('93.184.216.34', vps)).toBe('this-host');
    expect(judged('::ffff:93.184.216.34', vps)).toBe('this-host');
    expect(judged('93.184.216.34', { ...vps, allowPrivate: true })).toBeNull();
  });

  it('refuses private, shared, unspecified, link-local, multicast, reserved, documentation and benchmarking ranges', () => {
    const cases: Record<string, string> = {
      '10.1.2.3': 'private',
      '172.16.0.1': 'private',
      '172.31.255.255': 'private',
      '192.168.1.1': 'private',
      '::ffff:192.168.1.1': 'private',
      'fd12:3456::1': 'private',
      'fc00::1': 'private',
      'fec0::1': 'private',
      '100.64.0.1': 'shared',
      '100.127.255.255': 'shared',
      '0.0.0.0': 'unspecified',
      '0': 'unspecified',
      '0.1.2.3': 'unspecified',
      '::': 'unspecified',
      '[::ffff:0.0.0.0]': 'unspecified',
      '169.254.169.254': 'link-local',
      '::ffff:a9fe:a9fe': 'link-local',
      'fe80::1': 'link-local',
      '224.0.0.1': 'multicast',
      '239.255.255.250': 'multicast',
      'ff02::1': 'multicast',
      '255.255.255.255': 'broadcast',
      '240.0.0.1': 'reserved',
      '192.0.0.8': 'reserved',
      '192.88.99.1': 'reserved',
      '100::1': 'reserved',
      '64:ff9b:1::7f00:1': 'reserved',
      '2001::7f00:1': 'reserved',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2': 'reserved',
      '5f00::1': 'reserved',
      '192.0.2.1': 'documentation',
      '198.51.100.1': 'documentation',
      '203.0.113.9': 'documentation',
      '::ffff:203.0.113.9': 'documentation',
      '2002:cb00:7109::1': 'documentation',
      '2001:db8::1': 'documentation',
      '3fff::1': 'documentation',
      '198.18.0.1': 'benchmarking',
      '198.19.255.255': 'benchmarking',
      '2001:2::1': 'benchmarking',
    };
    for (const [form, kind] of Object.entries(cases)) expect(judged(form), form).toBe(kind);
  });

  it('lets public addresses through, in any form', () => {
    for (const form of [
      '93.184.216.34',
      '1.1.1.1',
      '0x5db8d822',
      '::ffff:93.184.216.34',
      '64:ff9b::5db8:d822',
      '2002:5db8:d822::1',
      '2606:4700:4700::1111',
      '172.32.0.1',
      '100.128.0.1',
      '198.20.0.1',
    ])
      expect(judged(form), form).toBeNull();
  });

  it('with the private-network setting: loopback, private, shared and this host pass; the rest stays refused', () => {
    for (const form of [
      '127.0.0.1',
      '127.1',
      '[::1]',
      '::ffff:127.0.0.1',
      '64:ff9b::7f00:1',
      '10.0.0.1',
      'fd12::1',
      '100.64.0.1',
      'fd00::2',
    ])
      expect(judged(form, lenient), form).toBeNull();
    for (const form of [
      '0.0.0.0',
      '::',
      '169.254.169.254',
      'fe80::1',
      '224.0.0.1',
      '203.0.113.1',
      '198.18.0.1',
      '2001:db8::1',
      '240.0.0.1',
      '192.0.2.1',
      '[::ffff:c000:201]',
    ])
      expect(judged(form, lenient), form).not.toBeNull();
  });
});

describe('network policy: resolving a host', () => {
  it('judges a literal without looking it up, and answers the form to connect to', async () => {
    await expect(resolveAllowed('0x5db8d822', strict, noLookup)).resolves.toMatchObject({
      address: '93.184.216.34',
      family: 4,
    });
    await expect(resolveAllowed('[2606:4700::1111]', strict, noLookup)).resolves.toMatchObject({
      address: '2606:4700::1111',
      family: 6,
    });
    await expect(resolveAllowed('127.1', lenient, noLookup)).resolves.toMatchObject({
      address: '127.0.0.1',
      family: 4,
    });
    const refused = await resolveAllowed('0177.0.0.1', strict, noLookup).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AddressRefused);
    expect((refused as AddressRefused).message).toBe('0177.0.0.1 is 127.0.0.1, a loopback address');
    expect((refused as AddressRefused).privateNetwork).toBe(true);
    await expect(resolveAllowed('[::ffff:c000:201]', lenient, noLookup)).rejects.toThrow(
      '[::ffff:c000:201] carries 192.0.2.1, a documentation address (reserved for examples)',
    );
    await expect(resolveAllowed('[::ffff:c000:202]', strict, noLookup)).rejects.toThrow(
      '[::ffff:c000:202] carries 192.0.2.2, an address of this server',
    );
  });

  it('refuses a name if any address it resolves to is refused, and connects to the one checked', async () => {
    const answers =
      (...addresses: string[]) =>
      () =>
        Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
    await expect(
      resolveAllowed('imap.example.com', strict, answers('93.184.216.34', '2606:4700::1')),
    ).resolves.toEqual({
      address: '93.184.216.34',
      family: 4,
      all: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700::1', family: 6 },
      ],
    });
    await expect(
      resolveAllowed('imap.example.com', strict, answers('93.184.216.34', '10.0.0.5')),
    ).rejects.toThrow('imap.example.com resolves to 10.0.0.5, a private network address');
    await expect(resolveAllowed('sneaky.example.com', strict, answers('::ffff:7f00:1'))).rejects.toThrow(
      'sneaky.example.com resolves to ::ffff:7f00:1, which carries 127.0.0.1, a loopback address',
    );
    await expect(
      resolveAllowed('nowhere.example.com', strict, () => Promise.reject(new Error('ENOTFOUND'))),
    ).rejects.toBeInstanceOf(HostNotFound);
    await expect(resolveAllowed('empty.example.com', strict, answers())).rejects.toBeInstanceOf(HostNotFound);
  });

  it('resolves localhost with the system resolver and refuses it', async () => {
    await expect(resolveAllowed('localhost', strict)).rejects.toThrow(
      /^localhost resolves to (127\.0\.0\.1|::1), a loopback address$/,
    );
    await expect(resolveAllowed('localhost', lenient)).resolves.toMatchObject({
      address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/),
    });
  });

  it('reads this host’s addresses from its network interfaces by default', () => {
    expect(judgeAddress(parseAddress('127.0.0.1')!, { allowPrivate: false })?.kind).toBe('loopback');
    expect(judgeAddress(parseAddress('::1')!, { allowPrivate: false })?.kind).toBe('loopback');
  });
});

describe('network policy: without a lookup, and for fetch', () => {
  it('judges literals and localhost names without resolving; other names wait for their lookup', () => {
    expect(refusedWithoutLookup('127.0.0.1', strict)?.message).toBe('127.0.0.1 is a loopback address');
    expect(refusedWithoutLookup('[::1]', strict)?.message).toBe('[::1] is a loopback address');
    expect(refusedWithoutLookup('localhost', strict)?.message).toBe(
      'localhost resolves to 127.0.0.1, a loopback address',
    );
    expect(refusedWithoutLookup('app.localhost', strict)?.judgement.kind).toBe('loopback');
    expect(refusedWithoutLookup('localhost', lenient)).toBeNull();
    expect(refusedWithoutLookup('wiki.example.com', strict)).toBeNull();
    expect(refusedWithoutLookup('93.184.216.34', strict)).toBeNull();
  });

  it('fetch through the guarded dispatcher never connects to a refused address, and connects where allowed', async () => {
    let connections = 0;
    const server = createServer((_request, response) => response.end('reached'));
    server.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://localhost:${(server.address() as AddressInfo).port}/`;
    try {
      const refused = await fetch(url, { dispatcher: guardedDispatcher(strict) } as RequestInit).catch(
        (e: unknown) => e,
      );
      expect(addressRefusedIn(refused)?.message).toMatch(
        /^localhost resolves to 127\.0\.0\.1, a loopback address$/,
      );
      expect(connections).toBe(0);
      const allowed = await fetch(url, {
        dispatcher: guardedDispatcher({ allowPrivate: true, hostAddresses: () => HOST }),
      } as RequestInit);
      expect(await allowed.text()).toBe('reached');
      expect(connections).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
