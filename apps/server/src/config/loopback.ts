import { isIP } from 'node:net';

/**
 * Whether a listen address only accepts connections from this machine: `localhost`, `127.0.0.0/8`,
 * `::1` and IPv4-mapped loopback. Wildcards (`0.0.0.0`, `::`) and every other name are not.
 */
export function isLoopbackAddress(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const lower = bare.toLowerCase();
  if (lower === 'localhost') return true;
  if (isIP(lower) === 4) return lower.startsWith('127.');
  if (isIP(lower) === 6) {
    if (lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    return mapped !== null && mapped[1]!.startsWith('127.');
  }
  return false;
}
