import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { IMPORT_ANSWER_LIMITS } from '@mdstore/core';
import { describe, expect } from 'vitest';
import { type ReadEntry, readTarGz, readZip } from '../support/archives.js';
import { craftTarGz, craftZip } from '../support/crafted-archives.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Import (extensions §10): `POST /api/projects/{id}/import?mode=merge|replace&dry_run=&importer=` with a
 * zip or tar.gz body. Runs on every adapter pair (the HTTP matrix).
 */
const test = serverTest();

interface ImportAnswer {
  changeset_id: string | null;
  created: string[];
  updated: string[];
  unchanged: string[];
  deleted: string[];
  skipped: Array<{ name: string; reason: string }>;
  skipped_omitted: number;
}

const TYPES = { zip: 'application/zip', 'tar.gz': 'application/gzip' } as const;

function post(
  h: HttpHarness,
  key: string,
  projectId: string,
  body: Buffer,
  o: { query?: string; type?: string } = {},
) {
  return h.fetch(`/api/projects/${projectId}/import${o.query ?? ''}`, {
    method: 'POST',
    key,
    headers: { 'Content-Type': o.type ?? TYPES.zip },
    body,
  });
}

async function imported(
  h: HttpHarness,
  key: string,
  projectId: string,
  body: Buffer,
  o: { query?: string; type?: string } = {},
) {
  const response = await post(h, key, projectId, body, o);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as ImportAnswer;
}

async function filesOf(h: HttpHarness, key: string, projectId: string) {
  const response = await h.fetch(`/api/projects/${projectId}/files?limit=1000`, { key });
  const list = (await response.json()) as {
    files: Array<{ filename: string; revision: number; metadata: unknown }>;
  };
  return Object.fromEntries(list.files.map((f) => [f.filename, f]));
}

async function textOf(h: HttpHarness, key: string, projectId: string, filename: string) {
  const response = await h.fetch(`/api/projects/${projectId}/files/${encodeURIComponent(filename)}`, { key });
  return response.text();
}

async function exportOf(h: HttpHarness, key: string, projectId: string, format: 'zip' | 'tar.gz') {
  const response = await h.fetch(`/api/projects/${projectId}/export?format=${format}`, { key });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

const SOURCE: Record<string, { text: string; metadata?: unknown }> = {
  'README.md': { text: '# Notes\n', metadata: { tags: ['top'], n: 1 } },
  'guides/setup.md': { text: '# Setup\n\n1. install\n' },
  'guides/deep/more.mdx': { text: '# More <Thing />\n', metadata: { nested: { a: [1, { b: null }] } } },
  'caf\u00e9s/\u00e9t\u00e9 \u65e5\u672c.md': { text: '# \u00c9t\u00e9 \u{1F600}\r\n' },
};

async function sourceProject(h: HttpHarness) {
  const { apiKey } = await h.account();
  const { id } = await h.createProject(apiKey, `source-${Math.random().toString(36).slice(2, 8)}`);
  for (const [filename, { text, metadata }] of Object.entries(SOURCE)) {
    await h.uploadFile(apiKey, id, filename, text, metadata);
  }
  return { apiKey, projectId: id };
}

const fileEntries = (entries: ReadEntry[]) =>
  entries
    .filter((e) => e.name !== 'mdstore.json')
    .map((e) => ({ name: e.name, bytes: e.bytes.toString('base64') }));

const manifestFiles = (entries: ReadEntry[]) => {
  const manifest = JSON.parse(entries.find((e) => e.name === 'mdstore.json')!.bytes.toString('utf8')) as {
    files: Array<{ filename: string; metadata: unknown; sha256: string }>;
  };
  return manifest.files.map(({ filename, metadata, sha256 }) => ({ filename, metadata, sha256 }));
};

describe('import (extensions §10)', () => {
  for (const format of ['zip', 'tar.gz'] as const) {
    const read = format === 'zip' ? readZip : readTarGz;

    test(`${format}: export, import into an empty project, export again: the same files, bytes and metadata`, async (h) => {
      const { apiKey, projectId } = await sourceProject(h);
      const first = await exportOf(h, apiKey, projectId, format);
      const { id: emptyId } = await h.createProject(apiKey, `copy-${format}`);
      const answer = await imported(h, apiKey, emptyId, first, { type: TYPES[format] });
      expect(answer.created).toEqual(Object.keys(SOURCE).sort());
      expect(answer).toMatchObject({ updated: [], unchanged: [], deleted: [], skipped: [] });
      expect(answer.changeset_id).toEqual(expect.any(String));
      const second = await exportOf(h, apiKey, emptyId, format);
      const [a, b] = [await read(first), await read(second)];
      expect(fileEntries(b)).toEqual(fileEntries(a));
      expect(manifestFiles(b)).toEqual(manifestFiles(a));
      const copied = await filesOf(h, apiKey, emptyId);
      expect(copied['README.md']?.metadata).toEqual(SOURCE['README.md']?.metadata);

      // Again: everything is unchanged, no changeset, no new revision.
      const again = await imported(h, apiKey, emptyId, second, { type: TYPES[format] });
      expect(again).toEqual({
        changeset_id: null,
        created: [],
        updated: [],
        unchanged: Object.keys(SOURCE).sort(),
        deleted: [],
        skipped: [],
        skipped_omitted: 0,
      });
      expect(await filesOf(h, apiKey, emptyId)).toEqual(copied);
    });
  }

  test('merge: new content or new metadata is updated (one revision); files the archive lacks stay', async (h) => {
    const { apiKey } = await h.account();
    const { id } = await h.createProject(apiKey, 'merge');
    await h.uploadFile(apiKey, id, 'a.md', 'A', { v: 1 });
    await h.uploadFile(apiKey, id, 'b.md', 'B', { v: 1 });
    await h.uploadFile(apiKey, id, 'keep.md', 'K');
    const manifest = {
      files: [
        { filename: 'a.md', metadata: { v: 1 } },
        { filename: 'b.md', metadata: { v: 2 } },
      ],
    };
    const zip = craftZip([
      { name: 'a.md', data: 'A2' },
      { name: 'b.md', data: 'B' },
      { name: 'c.md', data: 'C' },
      { name: 'mdstore.json', data: JSON.stringify(manifest) },
    ]);
    const answer = await imported(h, apiKey, id, zip);
    expect(answer).toMatchObject({
      created: ['c.md'],
      updated: ['a.md', 'b.md'],
      unchanged: [],
      deleted: [],
    });
    const files = await filesOf(h, apiKey, id);
    expect(Object.keys(files).sort()).toEqual(['a.md', 'b.md', 'c.md', 'keep.md']);
    expect(files['b.md']?.metadata).toEqual({ v: 2 });
    expect(files['a.md']?.metadata).toEqual({ v: 1 });
    expect(await textOf(h, apiKey, id, 'a.md')).toBe('A2');
    expect(files['keep.md']?.revision).toBe(1);
    // One changeset: each touched file has one new revision carrying its id and the message.
    for (const [name, revision] of [
      ['a.md', 2],
      ['b.md', 2],
      ['c.md', 1],
    ] as const) {
      const response = await h.fetch(`/api/projects/${id}/files/${name}/revisions`, { key: apiKey });
      const { revisions } = (await response.json()) as { revisions: Array<Record<string, unknown>> };
      expect(revisions[0], name).toMatchObject({
        revision,
        changeset_id: answer.changeset_id,
        message: 'import',
      });
    }
  });

  test('replace (admin) deletes the files the archive lacks; a write key is 403 and nothing changes', async (h) => {
    const account = await h.account();
    const { id } = await h.createProject(account.apiKey, 'replace');
    await h.uploadFile(account.apiKey, id, 'old.md', 'old');
    await h.uploadFile(account.apiKey, id, 'kept.md', 'kept');
    const zip = craftZip([
      { name: 'kept.md', data: 'kept' },
      { name: 'new.md', data: 'new' },
    ]);
    const writer = await h.store.apiKeys.create({ account: account.accountId, role: 'write' });
    const refused = await post(h, writer.apiKey, id, zip, { query: '?mode=replace' });
    expect(refused.status).toBe(403);
    expect(Object.keys(await filesOf(h, account.apiKey, id)).sort()).toEqual(['kept.md', 'old.md']);
    // A write key may merge.
    expect((await imported(h, writer.apiKey, id, zip, { query: '?dry_run=true' })).created).toEqual([
      'new.md',
    ]);
    const admin = await h.store.apiKeys.create({ account: account.accountId, role: 'admin' });
    const answer = await imported(h, admin.apiKey, id, zip, { query: '?mode=replace' });
    expect(answer).toMatchObject({ created: ['new.md'], unchanged: ['kept.md'], deleted: ['old.md'] });
    expect(Object.keys(await filesOf(h, account.apiKey, id)).sort()).toEqual(['kept.md', 'new.md']);
  });

  test('dry_run=true answers the same and changes nothing', async (h) => {
    const { apiKey } = await h.account();
    const { id } = await h.createProject(apiKey, 'dry');
    await h.uploadFile(apiKey, id, 'old.md', 'old');
    const zip = craftZip([
      { name: 'new.md', data: 'new' },
      { name: 'old.md', data: 'changed' },
    ]);
    const answer = await imported(h, apiKey, id, zip, { query: '?mode=replace&dry_run=true' });
    expect(answer).toEqual({
      changeset_id: null,
      created: ['new.md'],
      updated: ['old.md'],
      unchanged: [],
      deleted: [],
      skipped: [],
      skipped_omitted: 0,
    });
    const files = await filesOf(h, apiKey, id);
    expect(Object.keys(files)).toEqual(['old.md']);
    expect(files['old.md']?.revision).toBe(1);
  });

  test('skips, with their reasons: dot folders, attachments, folders, links, absolute paths, .., bad names, duplicates, oversized, non-UTF-8', async (h) => {
    const { apiKey } = await h.account();
    const { id } = await h.createProject(apiKey, 'skips');
    const zip = craftZip([
      { name: 'ok.md', data: '# ok' },
      { name: '.obsidian/app.md', data: '{}' },
      { name: 'img/photo.png', data: 'png' },
      { name: 'folder/' },
      { name: 'link.md', data: '/etc/passwd', mode: 0o120777 },
      { name: '/abs.md', data: 'x' },
      { name: '../up.md', data: 'x' },
      { name: 'bad//name.md', data: 'x' },
      { name: 'ok.md', data: '# second' },
      { name: 'big.md', data: 'b'.repeat(2000) },
      { name: 'latin.md', data: Buffer.from([0xff, 0xfe, 0x41]) },
      { name: 'empty.md', data: '' },
    ]);
    const answer = await imported(h, apiKey, id, zip);
    expect(answer.created).toEqual(['ok.md']);
    // An attachment's type is judged once the whole archive (and its manifest) is read: it comes last.
    expect(answer.skipped.map((s) => s.name)).toEqual([
      '.obsidian/app.md',
      'folder/',
      'link.md',
      '/abs.md',
      '../up.md',
      'bad//name.md',
      'ok.md',
      'big.md',
      'latin.md',
      'empty.md',
      'img/photo.png',
    ]);
    expect(answer.skipped.map((s) => s.reason)).toEqual([
      'dot folder or dot file',
      'directory',
      'symlink or link',
      'absolute path',
      'path leaves the archive (..)',
      expect.stringMatching(/^breaks the filename rules: /),
      'duplicate name',
      'over the size limit',
      'not UTF-8 text',
      'empty file',
      'its bytes are not what its content type says (image/png)',
    ]);
    expect(await textOf(h, apiKey, id, 'ok.md')).toBe('# ok');
  });

  test('a tar.gz with symlinks, hard links and .. is read the same way', async (h) => {
    const { apiKey } = await h.account();
    const { id } = await h.createProject(apiKey, 'tar');
    const archive = await craftTarGz([
      { name: 'a.md', data: 'a' },
      { name: 's.md', type: 'symlink', linkname: '/etc/passwd' },
      { name: 'h.md', type: 'link', linkname: 'a.md' },
      { name: '../x.md', data: 'x' },
    ]);
    const answer = await imported(h, apiKey, id, archive, { type: TYPES['tar.gz'] });
    expect(answer.created).toEqual(['a.md']);
    expect(answer.skipped.map((s) => s.reason)).toEqual([
      'symlink or link',
      'symlink or link',
      'path leaves the archive (..)',
    ]);
  });

  test('importer=notion cleans names and links', async (h) => {
    const { apiKey } = await h.account();
    const { id } = await h.createProject(apiKey, 'notion');
    const ID1 = '0123456789abcdef0123456789abcdef';
    const ID2 = 'fedcba9876543210fedcba9876543210';
    const zip = craftZip([
      { name: `Wiki ${ID1}.md`, data: `[Sub](Wiki%20${ID1}/Sub%20Page%20${ID2}.md)` },
      { name: `Wiki ${ID1}/Sub Page ${ID2}.md`, data: '# Sub' },
      { name: `Wiki ${ID1}/diagram.png`, data: 'png' },
    ]);
    const answer = await imported(h, apiKey, id, zip, { query: '?importer=notion' });
    expect(answer.created).toEqual(['Wiki.md', 'Wiki/Sub Page.md']);
    expect(answer.skipped).toEqual([
      {
        name: `Wiki ${ID1}/diagram.png`,
        reason: 'its bytes are not what its content type says (image/png)',
      },
    ]);
    expect(await textOf(h, apiKey, id, 'Wiki.md')).toBe('[Sub](Wiki/Sub%20Page.md)');
  });

  test('refusals before anything is written: bomb 422, bad archive 422, bad query 422, media type 415, another account’s project 403', async (h) => {
    const { apiKey } = await h.account();
    const { id } = await h.createProject(apiKey, 'refusals');
    const bomb = await craftTarGz([
      { name: 'first.md', data: 'written?' },
      { name: 'bomb.md', data: Buffer.alloc(20 * 1024 * 1024) },
    ]);
    const refused = await post(h, apiKey, id, bomb, { type: TYPES['tar.gz'] });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { detail: Array<{ type: string }> }).detail[0]?.type).toBe(
      'compression_ratio',
    );
    const notZip = await post(h, apiKey, id, Buffer.from('hello'));
    expect(notZip.status).toBe(422);
    expect((await post(h, apiKey, id, craftZip([]), { query: '?mode=everything' })).status).toBe(422);
    expect((await post(h, apiKey, id, craftZip([]), { type: 'text/plain' })).status).toBe(415);
    const other = await h.account();
    expect((await post(h, other.apiKey, id, craftZip([{ name: 'x.md', data: 'x' }]))).status).toBe(403);
    expect(await filesOf(h, apiKey, id)).toEqual({});
  });

  test('a tar.gz cut off mid-entry after two whole entries is 422, nothing written (issue 34, finding 14)', async (h) => {
    const { apiKey } = await h.account();
    const { id } = await h.createProject(apiKey, 'cut');
    const whole = gunzipSync(
      await craftTarGz([
        { name: 'a.md', data: 'a' },
        { name: 'b.md', data: 'b' },
        // Incompressible: the gzip stream is long enough to be cut inside this entry.
        { name: 'c.md', data: randomBytes(40_000).toString('base64') },
      ]),
    );
    // Two whole entries (a header and one 512-byte block each), then c.md's header and part of its data.
    const cutAt = 2 * 1024 + 512 + 1000;
    const cutTar = gzipSync(whole.subarray(0, cutAt)); // a whole gzip of a tar cut short
    const gzipped = gzipSync(whole);
    const cutGzip = gzipped.subarray(0, gzipped.length / 2); // a gzip stream cut inside c.md
    for (const [label, body] of [
      ['tar cut', cutTar],
      ['gzip cut', cutGzip],
    ] as const) {
      const refused = await post(h, apiKey, id, body, { type: TYPES['tar.gz'] });
      const text = await refused.text();
      expect({ label, status: refused.status }, text).toEqual({ label, status: 422 });
      expect((JSON.parse(text) as { detail: Array<{ loc: unknown; type: string }> }).detail).toEqual([
        expect.objectContaining({ loc: ['body'], type: 'archive_invalid' }),
      ]);
    }
    expect(await filesOf(h, apiKey, id)).toEqual({});
  });

  test('names echoed are capped (issue 34): at most 1000 skipped listed, the rest counted; long names cut with …', async (h) => {
    const { apiKey } = await h.account();
    const { id } = await h.createProject(apiKey, 'echoes');
    const { skippedMax, nameMaxBytes } = IMPORT_ANSWER_LIMITS;
    // Random text, not to be refused as a compression bomb: 3 KB a name.
    const long = (i: number) => `${String(i).padStart(5, '0')}${randomBytes(1500).toString('hex')}.png`;
    const archive = await craftTarGz([
      { name: 'kept.md', data: 'kept' },
      ...Array.from({ length: skippedMax + 20 }, (_, i) => ({ name: long(i), data: 'x' })),
    ]);
    const response = await post(h, apiKey, id, archive, { type: TYPES['tar.gz'] });
    const text = await response.text();
    expect(response.status).toBe(200);
    const answer = JSON.parse(text) as ImportAnswer;
    expect(answer.created).toEqual(['kept.md']);
    expect(answer.skipped).toHaveLength(skippedMax);
    expect(answer.skipped_omitted).toBe(20);
    for (const [i, entry] of answer.skipped.entries()) {
      expect(Buffer.byteLength(entry.name)).toBeLessThanOrEqual(nameMaxBytes);
      expect(entry.name.startsWith(String(i).padStart(5, '0'))).toBe(true);
      expect(entry.name.endsWith('…')).toBe(true);
    }
    // The answer is bounded by the caps, not by the 3 MB of names the archive holds (each reason is a
    // bounded text: these long names break the attachment path rules, whose message is the longest).
    expect(Buffer.byteLength(text)).toBeLessThan(skippedMax * (nameMaxBytes + 200));
    // A name within the bound is echoed whole; an archive with nothing past the caps says 0.
    const small = await imported(h, apiKey, id, craftZip([{ name: 'a.png', data: 'x' }]));
    expect([small.skipped, small.skipped_omitted]).toEqual([
      [{ name: 'a.png', reason: 'its bytes are not what its content type says (image/png)' }],
      0,
    ]);
  });

  test('a tar name header above 64 KiB: 422 header_too_large before anything is written (issue 34)', async (h) => {
    const { apiKey } = await h.account();
    const { id } = await h.createProject(apiKey, 'long names');
    const archive = await craftTarGz([
      { name: 'first.md', data: 'written?' },
      ...Array.from({ length: 3 }, (_, i) => ({ name: `${i}${'n'.repeat(1024 * 1024)}.md`, data: 'x' })),
    ]);
    const refused = await post(h, apiKey, id, archive, { type: TYPES['tar.gz'] });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { detail: Array<{ type: string }> }).detail[0]?.type).toBe(
      'header_too_large',
    );
    expect(await filesOf(h, apiKey, id)).toEqual({});
  });

  test('more than 100 000 entries: 422 before anything is written', async (h) => {
    const { apiKey } = await h.account();
    const { id } = await h.createProject(apiKey, 'entries');
    const many = craftZip([
      { name: 'first.md', data: 'x' },
      ...Array.from({ length: 100_000 }, (_, i) => ({ name: `${i}/`, store: true })),
    ]);
    const refused = await post(h, apiKey, id, many);
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { detail: Array<{ type: string }> }).detail[0]?.type).toBe(
      'too_many_entries',
    );
    expect(await filesOf(h, apiKey, id)).toEqual({});
  });
});

describe('import: all or nothing', () => {
  const capped = serverTest({ settings: { maxProjectBytes: 2500 } });

  capped('an import that cannot be applied whole (storage limit) changes nothing', async (h) => {
    const { apiKey } = await h.account();
    const { id } = await h.createProject(apiKey, 'whole');
    await h.uploadFile(apiKey, id, 'a.md', 'old');
    const zip = craftZip([
      { name: 'a.md', data: 'a'.repeat(900) },
      { name: 'b.md', data: 'b'.repeat(900) },
      { name: 'c.md', data: 'c'.repeat(900) },
    ]);
    const refused = await post(h, apiKey, id, zip);
    expect(refused.status).toBe(413);
    const files = await filesOf(h, apiKey, id);
    expect(Object.keys(files)).toEqual(['a.md']);
    expect(files['a.md']?.revision).toBe(1);
    expect(await textOf(h, apiKey, id, 'a.md')).toBe('old');
  });
});

describe('import size limit (MDSTORE_MAX_IMPORT_BYTES)', () => {
  const small = serverTest({ settings: { maxImportBytes: 4096 } });

  small('413 for a total uncompressed size over the limit, whether declared, inflated or sent', async (h) => {
    const { apiKey } = await h.account();
    const { id } = await h.createProject(apiKey, 'limit');
    // Small compressed, 5000 bytes uncompressed.
    const zip = craftZip([
      { name: 'a.md', data: 'a'.repeat(1000) },
      { name: 'b.md', data: 'b'.repeat(1000) },
      { name: 'c.md', data: 'c'.repeat(1000) },
      { name: 'd.md', data: 'd'.repeat(1000) },
      { name: 'e.md', data: 'e'.repeat(1000) },
    ]);
    const refused = await post(h, apiKey, id, zip);
    expect(refused.status).toBe(413);
    const tar = await craftTarGz([
      { name: 'a.md', data: 'a'.repeat(1000) },
      { name: 'b.md', data: 'b'.repeat(1000) },
      { name: 'c.md', data: 'c'.repeat(1000) },
    ]);
    expect((await post(h, apiKey, id, tar, { type: TYPES['tar.gz'] })).status).toBe(413);
    const sent = await post(h, apiKey, id, Buffer.alloc(5000));
    expect(sent.status).toBe(413);
    expect(await filesOf(h, apiKey, id)).toEqual({});
    const fits = craftZip([{ name: 'a.md', data: 'a'.repeat(1000) }]);
    expect((await imported(h, apiKey, id, fits)).created).toEqual(['a.md']);
  });
});
