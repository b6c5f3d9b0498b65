import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCsp } from '../../src/http/console/index.js';
import { HttpHarness } from '../support/http-harness.js';
import { ensureConsoleBuilt } from './support.js';

/** Extensions §11 and issue 28: how `/` and its assets are served. */

let harness: HttpHarness;
beforeAll(async () => {
  await ensureConsoleBuilt();
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
function raw(pathname: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${harness.url}${pathname}`, { headers }, (res) => {
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

/** The scripts the page loads at once: its module scripts and their module preloads. */
function firstLoadScripts(html: string): string[] {
  const scripts = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!);
  const preloads = [...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)].map((m) => m[1]!);
  return [...new Set([...scripts, ...preloads])];
}

describe('the console at /', () => {
  it('GET / needs no key: the page, not stored, under a CSP with scripts from self only, no inline script', async () => {
    const page = await harness.fetch('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const csp = page.headers.get('content-security-policy') ?? '';
    const html = await page.text();
    // Styles: the stylesheet, and the editor's style elements by the page's nonce, new on every load.
    const nonce = /<meta name="csp-nonce" content="([^"]+)">/.exec(html)?.[1];
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{24}$/);
    expect(csp).toBe(consoleCsp(nonce!));
    const other = await (await harness.fetch('/')).text();
    expect(other).not.toContain(nonce);
    const directives = Object.fromEntries(
      csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]),
    );
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['connect-src']).toEqual(["'self'"]);
    expect(directives['style-src']).toEqual(["'self'", `'nonce-${nonce}'`]);
    // Every script has a src (no inline code), and nothing is loaded from another origin (no CDN).
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/https?:\/\//);
    expect(firstLoadScripts(html).length).toBeGreaterThan(0);
  });

  it('hashed assets: a year immutable, compressed with brotli or gzip, ETag and 304; unknown names 404', async () => {
    const html = await (await harness.fetch('/')).text();
    const [script] = firstLoadScripts(html);
    expect(script).toMatch(/^\/assets\/[\w-]+-[\w-]{8}\.js$/);
    const br = await raw(script!, { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(br.headers['content-encoding']).toBe('br');
    expect(String(br.headers.vary)).toContain('Accept-Encoding');
    const plain = brotliDecompressSync(br.body);
    expect(plain.toString('utf8')).toContain('API key');
    const etag = String(br.headers.etag);
    expect(etag).toMatch(/^"index-[\w-]+\.js-br"$/);
    const again = await raw(script!, { 'Accept-Encoding': 'gzip, deflate, br', 'If-None-Match': etag });
    expect(again.status).toBe(304);
    const gzip = await raw(script!, { 'Accept-Encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).equals(plain)).toBe(true);
    const css = [...html.matchAll(/href="(\/assets\/[^"]+\.css)"/g)].map((m) => m[1]!);
    expect(css.length).toBe(1);
    const style = await harness.fetch(css[0]!);
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(style.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await harness.fetch('/assets/nothing-12345678.js')).status).toBe(404);
    expect((await harness.fetch('/assets/../index.html')).status).toBe(404);
  });

  it('the first load is under 200 KB of compressed JavaScript; the editor is a chunk of its own', async () => {
    const html = await (await harness.fetch('/')).text();
    let compressed = 0;
    const loaded: string[] = [];
    for (const script of firstLoadScripts(html)) {
      const { body, headers } = await raw(script, { 'Accept-Encoding': 'br' });
      expect(headers['content-encoding']).toBe('br');
      compressed += body.length;
      loaded.push(brotliDecompressSync(body).toString('utf8'));
    }
    console.log(`console first load: ${(compressed / 1024).toFixed(1)} KiB of brotli-compressed JavaScript`);
    expect(compressed).toBeLessThan(200 * 1024);
    // CodeMirror is not in the first load: it comes with the first "Edit".
    const first = loaded.join('\n');
    expect(first).not.toContain('cm-scroller');
    const editor = /import\(["'`]\.\/(editor-[\w-]+\.js)["'`]\)/.exec(first);
    expect(editor).not.toBeNull();
    const chunk = await harness.fetch(`/assets/${editor![1]}`);
    expect(chunk.status).toBe(200);
    expect(await chunk.text()).toContain('cm-scroller');
  });

  it('other methods on / are 405 with Allow; the API is unchanged behind it', async () => {
    const post = await harness.fetch('/', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await harness.fetch('/api/projects')).status).toBe(401);
  });

  it('without a build, / says how to build it (503) instead of failing, and serves a build made meanwhile', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mdstore-console-missing-'));
    const bare = await HttpHarness.start({ app: { consoleDir: dir } });
    try {
      const page = await bare.fetch('/');
      expect(page.status).toBe(503);
      expect(await page.text()).toContain('npm run build');
      // Built meanwhile: served from the next request on, without a restart.
      await mkdir(path.join(dir, 'assets'));
      await writeFile(
        path.join(dir, 'index.html'),
        '<!doctype html><html><head></head><body>built</body></html>',
      );
      const built = await bare.fetch('/');
      expect(built.status).toBe(200);
      expect(await built.text()).toContain('<meta name="csp-nonce"');
    } finally {
      await bare.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
