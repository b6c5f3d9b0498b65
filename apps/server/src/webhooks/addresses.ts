import ipaddr from 'ipaddr.js';

/**
 * The address rule of webhook targets (extensions §7): only public unicast addresses may be called.
 * `ipaddr.js` names the range of an address; everything but `unicast` is refused: loopback, private
 * (RFC 1918), link-local (with the cloud metadata address 169.254.169.254), unique-local (fd00::/8, with
 * AWS's fd00:ec2::254), carrier-grade NAT (100.64/10, Alibaba's metadata 100.100.100.200), multicast,
 * reserved, unspecified, and the IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4, Teredo),
 * which could reach any of those. `ipaddr.js` calls some other IPv6 forms `unicast` that are not public
 * (issue 34, finding 8): those are refused by name (IPv4-compatible `::/96`, RFC 8215's local NAT64
 * `64:ff9b:1::/48`, site-local `fec0::/10`), and any other IPv6 address outside global unicast
 * (`2000::/3`) as `nonGlobal`.
 */
export type AddressVerdict = { readonly allowed: true } | { readonly allowed: false; readonly range: string };

/** IPv6 ranges `ipaddr.js` calls `unicast` that are not public, by the name a refusal gives. */
const NOT_PUBLIC_V6: ReadonlyArray<readonly [string, [ipaddr.IPv6, number]]> = [
  ['ipv4Compatible', ipaddr.IPv6.parseCIDR('::/96')],
  ['nat64Local', ipaddr.IPv6.parseCIDR('64:ff9b:1::/48')],
  ['siteLocal', ipaddr.IPv6.parseCIDR('fec0::/10')],
];
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

export function classifyAddress(address: string): AddressVerdict {
  if (!ipaddr.isValid(address)) return { allowed: false, range: 'invalid' };
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  if (range !== 'unicast') return { allowed: false, range };
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    const named = NOT_PUBLIC_V6.find(([, cidr]) => v6.match(cidr));
    if (named) return { allowed: false, range: named[0] };
    if (!v6.match(GLOBAL_UNICAST_V6)) return { allowed: false, range: 'nonGlobal' };
  }
  return { allowed: true };
}

/** The host of a URL as an IP literal (IPv6 without its brackets), or undefined for a name. */
export function ipLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare))
    ? bare
    : undefined;
}
