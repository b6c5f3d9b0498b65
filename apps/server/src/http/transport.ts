import { isIP } from 'node:net';

/** A host name, an IPv4 address or a bracketed IPv6 address, optionally with a port. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

const hostnameOnly = (host: string): string =>
  host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');

/**
 * `https://<host>[:port]<path and query>` for a plain-HTTP request, or undefined when the `Host` it
 * came with is not a plain host name (nothing from the request is echoed into `Location` unchecked).
 */
export function httpsRedirectLocation(input: {
  hostHeader: string | undefined;
  url: string;
  port?: number;
}): string | undefined {
  const host = input.hostHeader?.trim();
  if (!host || !HOST.test(host) || !input.url.startsWith('/')) return undefined;
  const port = input.port === undefined || input.port === 443 ? '' : `:${input.port}`;
  return `https://${hostnameOnly(host)}${port}${input.url}`;
}

/** `host:port` in a URL, IPv6 addresses in brackets. */
export function urlHost(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}
