import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseCoding } from '../../src/http/reference/compressed.js';
import { HttpHarness } from '../support/http-harness.js';

let harness: HttpHarness;
beforeAll(async () => {
  harness = await HttpHarness.start();
});
afterAll(async () => {
  await harness?.close();
});

interface Raw {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** A request whose answer is read as the bytes sent (fetch would decode them). */
function raw(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${harness.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const varies = (answer: Raw) =>
  String(answer.headers.vary ?? '')
    .toLowerCase()
    .includes('accept-encoding');

describe('/docs assets and /openapi.json are served compressed', () => {
  for (const path of ['/docs/redoc.standalone.js', '/openapi.json']) {
    it(`${path}: brotli, gzip or as it is, by Accept-Encoding, with Vary, the same bytes decoded`, async () => {
      const plain = await raw(path, { 'Accept-Encoding': 'identity' });
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(varies(plain)).toBe(true);
      const none = await raw(path);
      expect(none.headers['content-encoding']).toBeUndefined();
      expect(none.body.equals(plain.body)).toBe(true);

      const br = await raw(path, { 'Accept-Encoding': 'gzip, deflate, br' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(varies(br)).toBe(true);
      expect(Number(br.headers['content-length'])).toBe(br.body.length);
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);

      const gz = await raw(path, { 'Accept-Encoding': 'gzip' });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(varies(gz)).toBe(true);
      expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);

      const preferGzip = await raw(path, { 'Accept-Encoding': 'br;q=0.5, gzip;q=1' });
      expect(preferGzip.headers['content-encoding']).toBe('gzip');
      expect(br.body.length).toBeLessThan(plain.body.length / 3);
      expect(gz.body.length).toBeLessThan(plain.body.length / 3);
    });
  }

  it('the bundle has an ETag per representation, and a fresh copy of each is a 304', async () => {
    const br = await raw('/docs/redoc.standalone.js', { 'Accept-Encoding': 'br' });
    const plain = await raw('/docs/redoc.standalone.js');
    const brTag = String(br.headers.etag);
    expect(brTag).not.toBe(String(plain.headers.etag));
    const fresh = await raw('/docs/redoc.standalone.js', { 'Accept-Encoding': 'br', 'If-None-Match': brTag });
    expect(fresh.status).toBe(304);
    expect(varies(fresh)).toBe(true);
    const other = await raw('/docs/redoc.standalone.js', { 'If-None-Match': brTag });
    expect(other.status).toBe(200);
    expect(other.body.equals(plain.body)).toBe(true);
  });

  it('HEAD answers the headers of the representation without a body', async () => {
    const head = await raw('/docs/redoc.standalone.js', { 'Accept-Encoding': 'br' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBe('br');
    expect(head.body.length).toBe(0);
  });
});

describe('chooseCoding', () => {
  it('takes the highest q-value, the server order (br, gzip, as it is) among equals', () => {
    expect(chooseCoding(undefined)).toBeUndefined();
    expect(chooseCoding('')).toBeUndefined();
    expect(chooseCoding('gzip, deflate, br')).toBe('br');
    expect(chooseCoding('gzip, deflate, br, zstd')).toBe('br');
    expect(chooseCoding('gzip')).toBe('gzip');
    expect(chooseCoding('GZIP;Q=0.8')).toBe('gzip');
    expect(chooseCoding('br;q=0.5, gzip;q=1')).toBe('gzip');
    expect(chooseCoding('br;q=0, gzip;q=0')).toBeUndefined();
    expect(chooseCoding('identity')).toBeUndefined();
    expect(chooseCoding('deflate')).toBeUndefined();
    expect(chooseCoding('*')).toBe('br');
    expect(chooseCoding('*;q=0.5, identity')).toBeUndefined();
    expect(chooseCoding('br;q=0.4, identity;q=0.5')).toBeUndefined();
    expect(chooseCoding('br;q=0.5, identity;q=0.5')).toBe('br');
    expect(chooseCoding('br;q=nonsense, gzip')).toBe('gzip');
  });
});
