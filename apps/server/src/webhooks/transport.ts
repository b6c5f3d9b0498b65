import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import {
  type TargetCheck,
  WEBHOOK_LIMITS,
  type WebhookPost,
  type WebhookPostResult,
  type WebhookTransport,
} from '@mdstore/core';
import { classifyAddress, ipLiteral } from './addresses.js';

/** Every address a host name resolves to (injectable: tests stub DNS, never reach the network). */
export type Resolver = (hostname: string) => Promise<readonly string[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((found) => found.address);

export interface HttpWebhookTransportOptions {
  /** `MDSTORE_WEBHOOK_ALLOW_PRIVATE`: let targets resolve to loopback, private… addresses (tests, labs). */
  readonly allowPrivate: boolean;
  readonly resolver?: Resolver;
  /** A lookup that takes longer counts as a host that does not resolve (a request never waits on DNS for long). */
  readonly resolveTimeoutMs?: number;
}

/** The promise's value, or a rejection after `ms`. */
function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS lookup timed out')), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

type Resolution = { readonly address: string } | { readonly refused: string };

/**
 * Webhook targets over HTTP(S) with the address rule of extensions §7. Each post resolves the host,
 * checks EVERY address (a later DNS answer may differ from the one checked at creation: DNS rebinding),
 * then connects to the checked address itself through `lookup`, so the socket never asks DNS again;
 * the URL's host stays the `Host` header and the TLS server name. No redirect is followed (a 3xx is an
 * answer like any other non-2xx), and the whole exchange has one deadline.
 */
export function httpWebhookTransport(o: HttpWebhookTransportOptions): WebhookTransport {
  const resolver = o.resolver ?? systemResolver;
  const resolveWithin = o.resolveTimeoutMs ?? WEBHOOK_LIMITS.timeoutMs;

  async function resolve(url: URL): Promise<Resolution> {
    const literal = ipLiteral(url.hostname);
    let addresses: readonly string[];
    try {
      addresses =
        literal !== undefined ? [literal] : await withinDeadline(resolver(url.hostname), resolveWithin);
    } catch {
      return { refused: `url host ${url.hostname} does not resolve` };
    }
    if (addresses.length === 0) return { refused: `url host ${url.hostname} does not resolve` };
    if (!o.allowPrivate) {
      for (const address of addresses) {
        const verdict = classifyAddress(address);
        if (!verdict.allowed) return { refused: `url host resolves to a ${verdict.range} address` };
      }
    }
    return { address: addresses[0]! };
  }

  return {
    async checkTarget(url) {
      const found = await resolve(new URL(url));
      return (
        'refused' in found ? { allowed: false, reason: found.refused } : { allowed: true }
      ) as TargetCheck;
    },
    async post(request) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), request.timeoutMs);
      try {
        const url = new URL(request.url);
        const found = await resolve(url);
        if ('refused' in found) return { error: `refused: ${found.refused}` };
        if (controller.signal.aborted) return { error: `timeout after ${request.timeoutMs} ms` };
        return await send(url, found.address, request, controller.signal);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** A `lookup` that answers with the address already checked, in both of Node's callback forms. */
const pinned =
  (address: string): LookupFunction =>
  (_hostname, options, callback) => {
    const family = address.includes(':') ? 6 : 4;
    if (options.all)
      (callback as (e: null, all: { address: string; family: number }[]) => void)(null, [
        { address, family },
      ]);
    else callback(null, address, family);
  };

function send(
  url: URL,
  address: string,
  request: WebhookPost,
  signal: AbortSignal,
): Promise<WebhookPostResult> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        lookup: pinned(address),
        agent: false,
        signal,
      },
      (res) => {
        // Only the status matters: the rest of the answer is not read.
        resolve({ status: res.statusCode ?? 0 });
        res.destroy();
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      resolve({
        error: signal.aborted
          ? `timeout after ${request.timeoutMs} ms`
          : `${error.code ?? 'error'}: ${error.message}`,
      });
    });
    req.end(request.body);
  });
}
