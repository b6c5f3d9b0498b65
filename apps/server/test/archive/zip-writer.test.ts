import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { crc32, tableCrc32, ZIP_WHOLE_ENTRY_BYTES, zipWriter } from '../../src/archive/zip.js';
import { readZip } from '../support/archives.js';

/**
 * The export's zip writer (extensions §10): entries read whole and deflated at once up to
 * `ZIP_WHOLE_ENTRY_BYTES`, streamed with a data descriptor beyond; ZIP64 records when offsets or the
 * entry count need them. Read back with yauzl, which checks every CRC and size, and with unzip.
 */

async function* chunks(bytes: Buffer, size = 10_000) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function zipOf(
  files: Array<{ name: string; bytes: Buffer }>,
  options: Parameters<typeof zipWriter>[0] = {},
): Promise<Buffer> {
  const writer = zipWriter(options);
  const parts: Buffer[] = [];
  const collected = (async () => {
    for await (const part of writer.output) parts.push(part as Buffer);
  })();
  const signal = new AbortController().signal;
  const mtime = new Date('2026-11-27T12:34:56Z');
  for (const file of files) {
    await writer.add({ name: file.name, size: file.bytes.length, mtime }, chunks(file.bytes), signal);
  }
  await writer.finish('mdstore.json', Buffer.from('{"files":[]}'), mtime);
  await collected;
  return Buffer.concat(parts);
}

/** Bytes that do not deflate much (a digest chain), so that large entries are large in the zip too. */
function noise(size: number, seed: string): Buffer {
  const out = Buffer.alloc(size);
  let block = createHash('sha256').update(seed).digest();
  for (let at = 0; at < size; at += block.length) {
    block.copy(out, at);
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

const FILES = [
  { name: 'README.md', bytes: Buffer.from('# Notes\n') },
  { name: 'caf\u00e9s/\u00e9t\u00e9 \u65e5\u672c.md', bytes: Buffer.from('# \u00c9t\u00e9 \u{1F600}\r\n') },
  { name: 'big/whole.md', bytes: noise(ZIP_WHOLE_ENTRY_BYTES, 'whole') },
  { name: 'big/streamed.md', bytes: noise(ZIP_WHOLE_ENTRY_BYTES + 1, 'streamed') },
  { name: 'big/larger.md', bytes: Buffer.from('x'.repeat(300_000)) },
];

const expected = [
  ...FILES.map((file) => ({ name: file.name, bytes: file.bytes.toString('base64') })),
  { name: 'mdstore.json', bytes: Buffer.from('{"files":[]}').toString('base64') },
];
const asRead = (entries: Awaited<ReturnType<typeof readZip>>) =>
  entries.map((entry) => ({ name: entry.name, bytes: entry.bytes.toString('base64') }));

describe('zip writer', () => {
  it('writes small entries whole and large ones streamed, every byte and name as given', async () => {
    const zip = await zipOf(FILES);
    expect(asRead(await readZip(zip))).toEqual(expected);
    // Entries are deflated: the 300 000 repeated bytes take a few hundred.
    expect(zip.length).toBeLessThan(2 * ZIP_WHOLE_ENTRY_BYTES + 10_000);
  });

  it('writes ZIP64 records when offsets and the entry count need them (thresholds lowered)', async () => {
    const zip = await zipOf(FILES, { zip64From: { offset: 100, entries: 2 } });
    expect(zip.includes(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBe(true);
    expect(zip.includes(Buffer.from([0x50, 0x4b, 0x06, 0x07]))).toBe(true);
    expect(asRead(await readZip(zip))).toEqual(expected);
  });

  it('unzip reads what it writes, ZIP64 too', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'mdstore-zip-'));
    try {
      for (const [name, options] of [
        ['plain.zip', {}],
        ['zip64.zip', { zip64From: { offset: 100, entries: 2 } }],
      ] as const) {
        const file = path.join(folder, name);
        await writeFile(file, await zipOf(FILES, options));
        const tested = await promisify(execFile)('unzip', ['-t', file]).catch((error: unknown) => error);
        if ((tested as NodeJS.ErrnoException).code === 'ENOENT') return; // no unzip on this machine
        expect((tested as { stdout: string }).stdout).toContain('No errors detected');
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('refuses a content of another size than declared', async () => {
    const writer = zipWriter();
    writer.output.resume();
    const signal = new AbortController().signal;
    const mtime = new Date();
    await expect(
      writer.add({ name: 'a.md', size: 5, mtime }, chunks(Buffer.from('abc')), signal),
    ).rejects.toThrow('3 bytes read, 5 expected');
    await expect(
      writer.add({ name: 'b.md', size: 200_000, mtime }, chunks(Buffer.alloc(100_000)), signal),
    ).rejects.toThrow('100000 bytes read, 200000 expected');
  });

  it('crc32 by table equals zlib\u2019s, in one piece or continued', () => {
    const bytes = noise(5000, 'crc');
    for (const crc of [crc32, tableCrc32]) {
      expect(crc(Buffer.from('123456789'))).toBe(0xcbf43926);
      expect(crc(bytes.subarray(2000), crc(bytes.subarray(0, 2000)))).toBe(crc(bytes));
    }
    expect(tableCrc32(bytes)).toBe(crc32(bytes));
  });
});
