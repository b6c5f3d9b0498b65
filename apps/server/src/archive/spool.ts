import { randomUUID } from 'node:crypto';
import { open, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ImportSpool } from '@mdstore/core';

/**
 * An import's spool on disk (extensions §10): one temporary file, written at its end, read at offsets.
 * The file is unlinked as soon as it is open, so it has no name while the import runs and nothing of it
 * outlives the process, even one killed midway; its space goes when the handle is closed. Contents are
 * checked text the import wrote itself, and the commit hashes what it reads back. Nothing is fsynced:
 * the spool is not part of the store and a crash loses only the import in progress, which committed
 * nothing.
 */
export async function fileSpool(folder: string = tmpdir()): Promise<ImportSpool> {
  const file = path.join(folder, `mdstore-import-${randomUUID()}.spool`);
  const handle = await open(file, 'wx+', 0o600);
  await unlink(file).catch(() => {});
  let end = 0;
  return {
    async put(bytes) {
      // The place is taken before the write, so that writes started together never overlap.
      const offset = end;
      end += bytes.byteLength;
      let written = 0;
      while (written < bytes.byteLength) {
        const { bytesWritten } = await handle.write(
          bytes,
          written,
          bytes.byteLength - written,
          offset + written,
        );
        written += bytesWritten;
      }
      return { offset, size: bytes.byteLength };
    },
    async get(ref) {
      const bytes = Buffer.allocUnsafeSlow(ref.size);
      let read = 0;
      while (read < ref.size) {
        const { bytesRead } = await handle.read(bytes, read, ref.size - read, ref.offset + read);
        if (bytesRead === 0) throw new Error('The import spool ended early');
        read += bytesRead;
      }
      return bytes;
    },
    close: () => handle.close(),
  };
}
