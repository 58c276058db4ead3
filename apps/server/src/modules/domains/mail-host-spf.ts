/**
 * The SPF record MAIL_HOST publishes for itself. Every domain's SPF record says
 * `include:<MAIL_HOST>`, and a receiver evaluating that include reads MAIL_HOST's own SPF record:
 * without one the include is a `permerror` (RFC 7208 §5.2) and the domain's SPF never passes.
 *
 * `a` rather than the host's `ip4:`/`ip6:` addresses: it names whatever MAIL_HOST's A and AAAA
 * records hold, so the record stays right when the host moves or gains an IPv6 address, and Atrium
 * (which may sit behind NAT) need not know its public address to print it. It costs one of the ten
 * lookups a receiver allows (§4.6.4) inside each domain's include. `-all`: only this host sends as
 * MAIL_HOST itself (its bounces, whose SPF is checked on the HELO name, MAIL_HOST); a domain's own
 * record keeps its `~all`, because an include that does not pass only stops matching (§5.2).
 */
export const MAIL_HOST_SPF_VALUE = 'v=spf1 a -all';

export function mailHostSpfRecord(mailHost: string): { host: string; type: 'TXT'; value: string } {
  return { host: mailHost, type: 'TXT', value: MAIL_HOST_SPF_VALUE };
}
