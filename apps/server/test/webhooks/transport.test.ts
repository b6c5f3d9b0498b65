import { createHmac, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createWebhookDelivery } from '@mdstore/core';
import { ChangeFeedDouble, seedWebhook } from '@mdstore/core/testing';
import { openSqliteStore } from '@mdstore/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyAddress } from '../../src/webhooks/addresses.js';
import { httpWebhookTransport, type Resolver } from '../../src/webhooks/transport.js';
import { type Receiver, startReceiver } from './receiver.js';

const receivers: Receiver[] = [];
const receiver = async () => {
  const started = await startReceiver();
  receivers.push(started);
  return started;
};
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const post = (url: string, timeoutMs = 10_000) => ({
  url,
  headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
  body: '{"type":"file.created"}',
  timeoutMs,
});

/** A resolver that never asks DNS: names map to the given answers (in turn, the last one repeated). */
const stubResolver = (answers: Record<string, string[][]>): Resolver & { asked: string[] } => {
  const asked: string[] = [];
  const resolver = async (host: string) => {
    asked.push(host);
    const list = answers[host];
    if (!list) throw new Error(`ENOTFOUND ${host}`);
    return list.length > 1 ? list.shift()! : list[0]!;
  };
  return Object.assign(resolver, { asked });
};

describe('the address rule (extensions §7)', () => {
  it('allows public unicast addresses only', () => {
    const table: Record<string, string | true> = {
      '93.184.215.14': true,
      '2606:2800:21f:cb07:6820:80da:af6b:8b2c': true,
      '127.0.0.1': 'loopback',
      '127.8.9.10': 'loopback',
      '::1': 'loopback',
      '10.0.0.1': 'private',
      '172.16.5.4': 'private',
      '192.168.1.1': 'private',
      '169.254.169.254': 'linkLocal',
      'fe80::1': 'linkLocal',
      'fd00:ec2::254': 'uniqueLocal',
      'fc00::1': 'uniqueLocal',
      '100.100.100.200': 'carrierGradeNat',
      '0.0.0.0': 'unspecified',
      '::': 'unspecified',
      '224.0.0.1': 'multicast',
      '255.255.255.255': 'broadcast',
      '::ffff:127.0.0.1': 'loopback',
      '::ffff:169.254.169.254': 'linkLocal',
      '64:ff9b::a9fe:a9fe': 'rfc6052',
      '2002:7f00:1::': '6to4',
      'not an address': 'invalid',
      // IPv6 forms ipaddr.js calls unicast (issue 34, finding 8).
      '::7f00:1': 'ipv4Compatible',
      '::a9fe:a9fe': 'ipv4Compatible',
      '::a00:1': 'ipv4Compatible',
      '64:ff9b:1::a9fe:a9fe': 'nat64Local',
      'fec0::1': 'siteLocal',
      '4000::1': 'nonGlobal',
    };
    for (const [address, expected] of Object.entries(table)) {
      const verdict = classifyAddress(address);
      expect({ address, verdict }).toEqual({
        address,
        verdict: expected === true ? { allowed: true } : { allowed: false, range: expected },
      });
    }
  });

  it('checks every address a name resolves to, and refuses names that do not resolve', async () => {
    const resolver = stubResolver({
      'public.test': [['93.184.215.14']],
      'mixed.test': [['93.184.215.14', '10.0.0.7']],
      'metadata.test': [['169.254.169.254']],
    });
    const transport = httpWebhookTransport({ allowPrivate: false, resolver });
    expect(await transport.checkTarget('https://public.test/x')).toEqual({ allowed: true });
    expect(await transport.checkTarget('https://mixed.test/x')).toEqual({
      allowed: false,
      reason: 'url host resolves to a private address',
    });
    expect(await transport.checkTarget('http://metadata.test/latest')).toEqual({
      allowed: false,
      reason: 'url host resolves to a linkLocal address',
    });
    expect((await transport.checkTarget('http://gone.test/')).allowed).toBe(false);
    // Literals are judged without asking DNS.
    expect(await transport.checkTarget('http://[::1]:8080/')).toEqual({
      allowed: false,
      reason: 'url host resolves to a loopback address',
    });
    expect(resolver.asked).toEqual(['public.test', 'mixed.test', 'metadata.test', 'gone.test']);
    const open = httpWebhookTransport({ allowPrivate: true, resolver });
    expect(await open.checkTarget('http://metadata.test/latest')).toEqual({ allowed: true });
  });

  it('counts a lookup that hangs as a host that does not resolve', async () => {
    const transport = httpWebhookTransport({
      allowPrivate: false,
      resolver: () => new Promise(() => {}),
      resolveTimeoutMs: 50,
    });
    expect(await transport.checkTarget('https://slow-dns.test/')).toEqual({
      allowed: false,
      reason: 'url host slow-dns.test does not resolve',
    });
  });

  it('refuses IPv4-embedding and site-local IPv6 at delivery too, from DNS or a literal (issue 34, finding 8)', async () => {
    // A webhook stored before the rule (or a name rebound since) is refused at each attempt, unsent.
    const resolver = stubResolver({ 'embedded.test': [['::a9fe:a9fe']], 'site.test': [['fec0::1']] });
    const transport = httpWebhookTransport({ allowPrivate: false, resolver });
    for (const [url, range] of [
      ['http://embedded.test/', 'ipv4Compatible'],
      ['http://site.test/', 'siteLocal'],
      ['http://[::127.0.0.1]/', 'ipv4Compatible'],
      ['http://[64:ff9b:1::a9fe:a9fe]/', 'nat64Local'],
    ] as const) {
      expect(await transport.post(post(url))).toEqual({
        error: `refused: url host resolves to a ${range} address`,
      });
    }
  });

  it('checks again at each delivery: a name that now resolves to a private address is refused, unsent', async () => {
    // First answer public (at creation), then loopback (DNS rebinding).
    const resolver = stubResolver({ 'rebind.test': [['93.184.215.14'], ['127.0.0.1']] });
    const transport = httpWebhookTransport({ allowPrivate: false, resolver });
    expect(await transport.checkTarget('http://rebind.test/')).toEqual({ allowed: true });
    expect(await transport.post(post('http://rebind.test/'))).toEqual({
      error: 'refused: url host resolves to a loopback address',
    });
  });
});

describe('posting to a receiver on loopback (MDSTORE_WEBHOOK_ALLOW_PRIVATE=true)', () => {
  it('connects to the checked address (no second lookup), keeping the URL’s host', async () => {
    const r = await receiver();
    // `hooks.test` exists only in the stub: a second, system lookup could not find it.
    const resolver = stubResolver({ 'hooks.test': [['127.0.0.1']] });
    const transport = httpWebhookTransport({ allowPrivate: true, resolver });
    expect(await transport.post(post(`http://hooks.test:${r.port}/in`))).toEqual({ status: 200 });
    expect(resolver.asked).toEqual(['hooks.test']);
    expect(r.received).toHaveLength(1);
    expect(r.received[0]?.headers.host).toBe(`hooks.test:${r.port}`);
    expect(r.received[0]?.headers['webhook-id']).toBe('msg_1');
    expect(r.received[0]?.body).toBe('{"type":"file.created"}');
  });

  it('follows no redirect: a 3xx is the answer', async () => {
    const target = await receiver();
    const r = await receiver();
    r.answer = (res) => res.writeHead(307, { location: `${target.url}/elsewhere` }).end();
    const transport = httpWebhookTransport({ allowPrivate: true });
    expect(await transport.post(post(`${r.url}/in`))).toEqual({ status: 307 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect([r.received.length, target.received.length]).toEqual([1, 0]);
  });

  it('gives up after the timeout', async () => {
    const r = await receiver();
    r.answer = () => {}; // never answers
    const transport = httpWebhookTransport({ allowPrivate: true });
    const started = Date.now();
    expect(await transport.post(post(`${r.url}/slow`, 300))).toEqual({ error: 'timeout after 300 ms' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reports a refused connection as an error', async () => {
    const r = await receiver();
    const url = r.url;
    await r.close();
    receivers.splice(0);
    const result = await httpWebhookTransport({ allowPrivate: true }).post(post(url));
    expect(result).toEqual({ error: expect.stringMatching(/^ECONNREFUSED/) });
  });
});

describe('delivery end to end: engine, SQLite records, HTTP transport, receiver', () => {
  it('posts signed events a Standard Webhooks receiver verifies, in order', async () => {
    const r = await receiver();
    const dir = await mkdtemp(path.join(tmpdir(), 'mdstore-webhooks-'));
    const store = await openSqliteStore({ path: path.join(dir, 'records.db') });
    try {
      const webhook = await seedWebhook(store.records, { url: `${r.url}/in`, createdAt: 0 });
      const feed = new ChangeFeedDouble();
      const engine = createWebhookDelivery({
        records: store.records,
        feed,
        notifier: feed,
        transport: httpWebhookTransport({ allowPrivate: true }),
        clock: { now: () => Date.now() },
        ids: { uuid: randomUUID },
        owner: 'test',
      });
      engine.start();
      for (let i = 0; i < 3; i++) feed.append({ accountId: webhook.accountId, projectId: randomUUID() });
      await expect.poll(() => r.received.length, { timeout: 5000 }).toBe(3);
      await engine.stop();
      const key = Buffer.from(webhook.secret.slice('whsec_'.length), 'base64');
      for (const [i, got] of r.received.entries()) {
        const id = String(got.headers['webhook-id']);
        const timestamp = String(got.headers['webhook-timestamp']);
        const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${got.body}`).digest('base64');
        expect(got.headers['webhook-signature']).toBe(`v1,${expected}`);
        expect(id).toBe(`msg_${webhook.id}_${i + 1}`);
        expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
        expect(JSON.parse(got.body)).toMatchObject({ type: 'file.created', data: { seq: i + 1 } });
      }
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
