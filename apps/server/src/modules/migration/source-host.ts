import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * The old provider's server is named by an admin: without a guard, a migration could make Atrium
 * connect to its own network (loopback, private ranges, cloud metadata). Such addresses are
 * refused unless the operator sets MIGRATION_PRIVATE_HOSTS=true (tests; a provider on the LAN).
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

function isPrivate(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  return blocked.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

export class SourceHostProblem extends Error {}

/**
 * The address to connect to for `host`: every address it resolves to must be public (a name that
 * resolves to both is refused too), and the job connects to the address checked, not to the
 * name again (no second lookup that could answer differently).
 */
export async function resolveSourceHost(host: string, allowPrivate: boolean): Promise<string> {
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(bare) ? [bare] : (await lookup(bare, { all: true })).map((a) => a.address);
  } catch {
    throw new SourceHostProblem(`The old provider’s server ${host} was not found. Check its name.`);
  }
  if (addresses.length === 0) {
    throw new SourceHostProblem(`The old provider’s server ${host} was not found. Check its name.`);
  }
  if (!allowPrivate && addresses.some(isPrivate)) {
    throw new SourceHostProblem(
      `The old provider’s server ${host} is on a private network, which Atrium does not connect to.`,
    );
  }
  return addresses[0]!;
}
