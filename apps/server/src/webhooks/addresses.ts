import ipaddr from 'ipaddr.js';

/**
 * The address rule of webhook targets (extensions §7): only public unicast addresses may be called.
 * `ipaddr.js` names the range of an address; everything but `unicast` is refused: loopback, private
 * (RFC 1918), link-local (with the cloud metadata address 169.254.169.254), unique-local (fd00::/8, with
 * AWS's fd00:ec2::254), carrier-grade NAT (100.64/10, Alibaba's metadata 100.100.100.200), multicast,
 * reserved, unspecified, and the IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4, Teredo),
 * which could reach any of those.
 */
export type AddressVerdict = { readonly allowed: true } | { readonly allowed: false; readonly range: string };

export function classifyAddress(address: string): AddressVerdict {
  if (!ipaddr.isValid(address)) return { allowed: false, range: 'invalid' };
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  return range === 'unicast' ? { allowed: true } : { allowed: false, range };
}

/** The host of a URL as an IP literal (IPv6 without its brackets), or undefined for a name. */
export function ipLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare))
    ? bare
    : undefined;
}
