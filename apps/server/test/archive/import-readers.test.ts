import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { type ArchiveEntry, type ImportArchive, isMdStoreError } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { type ImportBounds, readImportBody } from '../../src/archive/read/index.js';
import { craftTarGz, craftZip } from '../support/crafted-archives.js';

/**
 * The archive readers of an import on crafted archives: what each entry is (by the archive, not its
 * name), and the bounds (total uncompressed size 413, entry count and compression ratio 422) refusing
 * an archive before its entries are used.
 */

const GIB = 1024 ** 3;
type Format = 'application/zip' | 'application/gzip';

async function entriesOf(type: Format, archive: Buffer, bounds: ImportBounds = { maxBytes: GIB }) {
  const seen: Array<Pick<ArchiveEntry, 'name' | 'kind' | 'size'> & { text?: string }> = [];
  const iterable: ImportArchive = readImportBody(type, Readable.from([archive]), bounds);
  for await (const entry of iterable) {
    const text = entry.kind === 'file' ? Buffer.from(await entry.read()).toString('utf8') : undefined;
    seen.push({ name: entry.name, kind: entry.kind, size: entry.size, ...(text !== undefined && { text }) });
  }
  return seen;
}

/** The refusal an iteration ends with: its code and, for a 422, the issue's type. */
async function refusal(type: Format, archive: Buffer, bounds: ImportBounds = { maxBytes: GIB }) {
  try {
    await entriesOf(type, archive, bounds);
  } catch (error) {
    if (!isMdStoreError(error)) throw error;
    const issues = (error as { issues?: Array<{ type: string }> }).issues;
    return { code: error.code, type: issues?.[0]?.type };
  }
  throw new Error('the archive was not refused');
}

const zeros = (bytes: number) => Buffer.alloc(bytes);

describe('zip', () => {
  it('tells files, folders and symlinks apart by the archive, with names as stored', async () => {
    const zip = craftZip([
      { name: 'notes/a.md', data: '# A\n' },
      { name: 'notes/' },
      { name: 'link.md', data: '/etc/passwd', mode: 0o120777 },
      { name: '../escape.md', data: 'x' },
      { name: '/abs.md', data: 'y' },
      { name: 'caf\u00e9.md', data: 'z', legacyName: true },
    ]);
    expect(await entriesOf('application/zip', zip)).toEqual([
      { name: 'notes/a.md', kind: 'file', size: 4, text: '# A\n' },
      { name: 'notes/', kind: 'directory', size: 0 },
      { name: 'link.md', kind: 'symlink', size: 11 },
      { name: '../escape.md', kind: 'file', size: 1, text: 'x' },
      { name: '/abs.md', kind: 'file', size: 1, text: 'y' },
      { name: 'caf\u00e9.md', kind: 'file', size: 1, text: 'z' },
    ]);
  });

  it('refuses a bomb from its declared sizes, before inflating it', async () => {
    // 10 MiB of zeros deflate to about 10 KiB: a ratio near 1000.
    const zip = craftZip([{ name: 'bomb.md', data: zeros(10 * 1024 * 1024) }]);
    expect(await refusal('application/zip', zip)).toEqual({
      code: 'INVALID_INPUT',
      type: 'compression_ratio',
    });
  });

  it('refuses a bomb whose headers lie about its size, while inflating', async () => {
    const zip = craftZip([{ name: 'bomb.md', data: zeros(10 * 1024 * 1024), declaredSize: 100 }]);
    const refused = await refusal('application/zip', zip);
    expect(refused.code).toBe('INVALID_INPUT');
    expect(['compression_ratio', 'archive_invalid']).toContain(refused.type);
  });

  it('reads small entries whole (stored or deflated) and refuses one whose bytes do not match its CRC-32', async () => {
    const files = [
      { name: 'stored.md', data: 'kept as is\n', store: true },
      { name: 'deflated.md', data: `${'deflated '.repeat(50)}\n` },
    ];
    expect(await entriesOf('application/zip', craftZip(files))).toEqual(
      files.map((file) => ({ name: file.name, kind: 'file', size: file.data.length, text: file.data })),
    );
    const damaged = craftZip([{ name: 'a.md', data: 'hello', store: true }]);
    // The first byte of the data (after the 30-byte local header and the 4-byte name).
    damaged[34] = damaged[34]! ^ 1;
    expect(await refusal('application/zip', damaged)).toEqual({
      code: 'INVALID_INPUT',
      type: 'archive_invalid',
    });
  });

  it('refuses a total uncompressed size over the limit (413), declared or received', async () => {
    // Deflated, the two entries take about 250 bytes; inflated, 1200.
    const zip = craftZip([
      { name: 'a.md', data: 'a'.repeat(600) },
      { name: 'b.md', data: 'b'.repeat(600) },
    ]);
    expect(zip.length).toBeLessThan(400);
    expect(await refusal('application/zip', zip, { maxBytes: 1000 })).toEqual({
      code: 'IMPORT_TOO_LARGE',
      type: undefined,
    });
    // The body itself over the limit: refused while it is spooled.
    expect((await refusal('application/zip', zip, { maxBytes: 100 })).code).toBe('IMPORT_TOO_LARGE');
    expect(await entriesOf('application/zip', zip, { maxBytes: 1200 })).toHaveLength(2);
  });

  it('refuses more than 100 000 entries from the central directory', async () => {
    const many = Array.from({ length: 100_001 }, (_, i) => ({ name: `${i}/`, store: true }));
    expect(await refusal('application/zip', craftZip(many))).toEqual({
      code: 'INVALID_INPUT',
      type: 'too_many_entries',
    });
    expect(
      await refusal('application/zip', craftZip(many.slice(0, 4)), { maxBytes: GIB, maxEntries: 3 }),
    ).toEqual({ code: 'INVALID_INPUT', type: 'too_many_entries' });
  });

  it('answers 422 for a body that is not a zip', async () => {
    expect(await refusal('application/zip', Buffer.from('not a zip at all'))).toEqual({
      code: 'INVALID_INPUT',
      type: 'archive_invalid',
    });
  });
});

describe('tar.gz', () => {
  it('tells files, folders, symlinks, hard links and specials apart', async () => {
    const archive = await craftTarGz([
      { name: 'a.md', data: '# A\n' },
      { name: 'dir', type: 'directory' },
      { name: 's.md', type: 'symlink', linkname: '/etc/passwd' },
      { name: 'h.md', type: 'link', linkname: 'a.md' },
      { name: 'f.md', type: 'fifo' },
      { name: '../up.md', data: 'u' },
    ]);
    expect(await entriesOf('application/gzip', archive)).toEqual([
      { name: 'a.md', kind: 'file', size: 4, text: '# A\n' },
      { name: 'dir', kind: 'directory', size: 0 },
      { name: 's.md', kind: 'symlink', size: 0 },
      { name: 'h.md', kind: 'symlink', size: 0 },
      { name: 'f.md', kind: 'other', size: 0 },
      { name: '../up.md', kind: 'file', size: 1, text: 'u' },
    ]);
  });

  it('refuses a gzip bomb while inflating it', async () => {
    const archive = await craftTarGz([{ name: 'bomb.md', data: zeros(20 * 1024 * 1024) }]);
    expect(await refusal('application/gzip', archive)).toEqual({
      code: 'INVALID_INPUT',
      type: 'compression_ratio',
    });
  });

  it('refuses a total uncompressed size over the limit (413), and too many entries (422)', async () => {
    const archive = await craftTarGz([
      { name: 'a.md', data: 'a' },
      { name: 'b.md', data: 'b' },
      { name: 'c.md', data: 'c' },
    ]);
    expect((await refusal('application/gzip', archive, { maxBytes: 1024 })).code).toBe('IMPORT_TOO_LARGE');
    expect(await refusal('application/gzip', archive, { maxBytes: GIB, maxEntries: 2 })).toEqual({
      code: 'INVALID_INPUT',
      type: 'too_many_entries',
    });
    expect(await entriesOf('application/gzip', archive)).toHaveLength(3);
  });

  it('answers 422 for an archive cut inside an entry after two whole ones, as the entry is read (issue 34, finding 14)', async () => {
    const whole = gunzipSync(
      await craftTarGz([
        { name: 'a.md', data: 'a' },
        { name: 'b.md', data: 'b' },
        // Incompressible: the gzip stream is long enough to be cut inside this entry.
        { name: 'c.md', data: randomBytes(40_000).toString('base64') },
      ]),
    );
    const cutTar = gzipSync(whole.subarray(0, 2 * 1024 + 512 + 1000)); // a whole gzip of a cut tar
    const gzipped = gzipSync(whole);
    const cutGzip = gzipped.subarray(0, gzipped.length / 2); // a gzip stream cut inside c.md
    for (const archive of [cutTar, cutGzip]) {
      expect(await refusal('application/gzip', archive)).toEqual({
        code: 'INVALID_INPUT',
        type: 'archive_invalid',
      });
    }
  });

  it('answers 422 for a body that is not a gzip, or a gzip that is not a tar', async () => {
    expect(await refusal('application/gzip', Buffer.from('plain text'))).toEqual({
      code: 'INVALID_INPUT',
      type: 'archive_invalid',
    });
    const garbage = gzipSync(Buffer.from('x'.repeat(2000)));
    expect((await refusal('application/gzip', garbage)).code).toBe('INVALID_INPUT');
  });
});
