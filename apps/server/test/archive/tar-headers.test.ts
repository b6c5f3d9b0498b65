import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { IMPORT_ANSWER_LIMITS, isMdStoreError } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { readImportBody } from '../../src/archive/read/index.js';
import { tarHeaderGuard } from '../../src/archive/read/tar-headers.js';
import { craftTarGz } from '../support/crafted-archives.js';

/**
 * A tar's PAX (or GNU long-name) header is bounded before the tar parser buffers it (issue 34,
 * finding 4): the guard passes the blocks on unchanged and refuses the archive at the 512-byte header
 * of a name header above `longHeaderMaxBytes`, so the parser never receives its data.
 */

const MAX = IMPORT_ANSWER_LIMITS.longHeaderMaxBytes;

/** The bytes the guard passed on before it ended, and how it ended. */
async function through(tar: Buffer, chunk = 4096) {
  let passed = 0;
  const chunks = Array.from({ length: Math.ceil(tar.length / chunk) }, (_, i) =>
    tar.subarray(i * chunk, (i + 1) * chunk),
  );
  const sink = new Writable({
    write(data: Buffer, _encoding, done) {
      passed += data.length;
      done();
    },
  });
  try {
    await pipeline(Readable.from(chunks), tarHeaderGuard(), sink);
    return { passed, refused: null };
  } catch (error) {
    if (!isMdStoreError(error)) throw error;
    return { passed, refused: (error as unknown as { issues: Array<{ type: string }> }).issues[0]!.type };
  }
}

describe('the tar name header bound', () => {
  it('passes archives with long names under the bound (PAX headers, sizes, folders) whole', async () => {
    const tar = gunzipSync(
      await craftTarGz([
        { name: `${'a'.repeat(300)}.md`, data: 'x'.repeat(1000) },
        { name: 'dir/', type: 'directory' },
        { name: `${'é'.repeat(20_000)}.txt`, data: 'y' },
        { name: 'last.md', data: 'z' },
      ]),
    );
    expect(await through(tar, 700)).toEqual({ passed: tar.length, refused: null });
  });

  it('refuses a PAX name above the bound at its header: its data never reaches the parser', async () => {
    const tar = gunzipSync(
      await craftTarGz([
        { name: 'first.md', data: 'one' },
        { name: `${'n'.repeat(MAX + 1)}.md`, data: 'two' },
      ]),
    );
    const { passed, refused } = await through(tar, 512);
    expect(refused).toBe('header_too_large');
    // The first entry (header + one data block), and the PAX header's own 512-byte header at most.
    expect(passed).toBeLessThanOrEqual(3 * 512);
  });

  it('through the reader: 422 header_too_large, before the long entry is handed over', async () => {
    const archive = await craftTarGz([
      { name: 'first.md', data: 'one' },
      { name: `${'n'.repeat(4 * 1024 * 1024 - 600)}.md`, data: 'two' },
    ]);
    const names: string[] = [];
    let refused: string | undefined;
    try {
      for await (const entry of readImportBody('application/gzip', Readable.from([archive]), {
        maxBytes: 1024 ** 3,
      }))
        names.push(entry.name);
    } catch (error) {
      if (!isMdStoreError(error)) throw error;
      refused = (error as unknown as { issues: Array<{ type: string }> }).issues[0]!.type;
    }
    expect(refused).toBe('header_too_large');
    expect(names.every((name) => name.length < MAX)).toBe(true);
  });
});
