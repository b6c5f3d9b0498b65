/// <reference types="node" />
// Run by Node against a real server (the console's loaders, without a browser): Node's types here.
import { MdStoreApiError } from '@mdstore/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { errorText, fileObject, sdk, setKey, whenUnauthorized, whoAmI } from '../src/api';
import { attachmentOf, attachmentSrc, loadAttachmentImages, PENDING } from '../src/rendered';
import { loadFile, loadText } from '../src/screens/file';
import { loadFrontMatter } from '../src/yaml-view';

/**
 * The console's calls through the SDK against a real server (issue 35): what a screen loads, the 401
 * that signs out, the error text, an attachment image read with the key. The browser journeys
 * (apps/server/test/console/journeys.test.ts) drive the same code in Chromium.
 */

/** The SDK tests' real server (SQLite + files), as far as this file uses it. */
interface RealServer {
  readonly url: string;
  account(): Promise<{ apiKey: string; defaultProjectId: string }>;
  stop(): Promise<void>;
}

// Imported by a path tsc does not follow: the server's sources are not checked against the console's
// browser settings (`tsc -p apps/console`); the root tsconfig checks them.
const SUPPORT = new URL('../../../packages/client/test/support/server.ts', import.meta.url).pathname;

let server: RealServer;
let account: { apiKey: string; defaultProjectId: string };
let projectId: string;
const stored = new Map<string, string>();

beforeAll(async () => {
  const support = (await import(SUPPORT)) as { startRealServer(): Promise<RealServer> };
  server = await support.startRealServer();
  vi.stubGlobal('sessionStorage', {
    getItem: (name: string) => stored.get(name) ?? null,
    setItem: (name: string, value: string) => stored.set(name, value),
    removeItem: (name: string) => stored.delete(name),
  });
});
afterAll(async () => {
  setKey(null);
  vi.unstubAllGlobals();
  await server?.stop();
});
beforeEach(async () => {
  account = await server.account();
  vi.stubGlobal('location', { origin: server.url });
  setKey(account.apiKey);
  projectId = account.defaultProjectId;
});

const signal = () => new AbortController().signal;

describe('the console through the SDK', () => {
  it('signs in: who the key is, kept in sessionStorage only', async () => {
    expect(await whoAmI()).toMatchObject({ role: 'admin', project_ids: null });
    expect([...stored.values()]).toEqual([account.apiKey]);
  });

  it('a refused key (401) signs out, and the error reads as the server wrote it', async () => {
    const signedOut = vi.fn();
    whenUnauthorized(signedOut);
    setKey('mds_not-a-key');
    const refused = await whoAmI().catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(MdStoreApiError);
    expect((refused as MdStoreApiError).status).toBe(401);
    expect(signedOut).toHaveBeenCalled();
    expect(errorText(refused)).toBe((refused as MdStoreApiError).detail);
  });

  it('loads a file: rendered HTML with its ETag, the File object, the outline, the front matter', async () => {
    const text = '---\ntitle: Notes\n---\n# Notes\n\n## Part\n\nBody.\n';
    const file = await sdk().files.upload(projectId, 'dir/notes.md', text);
    const loaded = await loadFile(projectId, 'dir/notes.md', signal());
    expect(loaded.html).toContain('<h1');
    expect(loaded.etag).toBe(file.etag);
    expect(loaded.file?.revision).toBe(1);
    expect(loaded.outline.map((h) => h.text)).toEqual(['Notes', 'Part']);
    expect(await loadFrontMatter(projectId, 'dir/notes.md', signal())).toBe('---\ntitle: Notes\n---');
    expect(await loadText(projectId, 'dir/notes.md')).toEqual({ text, etag: file.etag });
    expect((await fileObject(projectId, 'dir/notes.md'))?.frontmatter).toEqual({ title: 'Notes' });
    expect(await fileObject(projectId, 'missing.md')).toBeNull();
  });

  it('an .mdx file is shown as its source, with the outline endpoint', async () => {
    await sdk().files.upload(projectId, 'page.mdx', '# Page\n');
    const loaded = await loadFile(projectId, 'page.mdx', signal());
    expect(loaded).toMatchObject({ html: null, text: '# Page\n', outline: [{ level: 1, text: 'Page' }] });
  });

  it('an attachment image is read with the key and shown through a blob: URL', async () => {
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64',
    );
    await sdk().attachments.write(projectId, 'img/a b.png', png, 'image/png');
    const src = attachmentSrc(projectId, 'img/a b.png');
    expect(attachmentOf(src)).toEqual({ projectId, path: 'img/a b.png' });
    const img = { src: '', getAttribute: (name: string) => (name === PENDING ? src : null) };
    const stop = loadAttachmentImages([img as unknown as HTMLImageElement]);
    await vi.waitFor(() => expect(img.src).toMatch(/^blob:/));
    stop();
  });
});
