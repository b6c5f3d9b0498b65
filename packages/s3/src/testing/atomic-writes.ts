import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** The part of s3rver's FilesystemStore that the patch below replaces or calls. */
export interface S3rverFilesystemStore {
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  putObject(object: {
    bucket: string;
    key: string;
    content: Buffer | Readable;
    metadata: unknown;
  }): Promise<Written>;
  putPart(bucket: string, uploadId: string, partNumber: number, content: Readable): Promise<Written>;
}

interface Written {
  size: number;
  md5: string;
}

/** Writes `content` to a temporary file in `tempDirectory`, then renames it over `target`. */
const writeAtomically = async (target: string, content: Buffer | Readable, tempDirectory: string) => {
  await mkdir(dirname(target), { recursive: true });
  const temporary = join(tempDirectory, randomUUID());
  const md5 = createHash('md5');
  let size = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      md5.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  try {
    await pipeline(
      Buffer.isBuffer(content) ? Readable.from([content]) : content,
      measure,
      createWriteStream(temporary),
    );
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return { size, md5: md5.digest('hex') };
};

/**
 * s3rver 3.7.1 writes an object (and an upload part) straight into its final file and answers before
 * the write has finished, so a concurrent or immediately following GET can read a mix or a truncated
 * object; S3 replaces objects atomically. This makes both writes complete-then-rename, as S3 behaves.
 * `tempDirectory` must be on the same filesystem as the s3rver directory and outside it.
 */
export const makeWritesAtomic = (store: S3rverFilesystemStore, tempDirectory: string): void => {
  store.putObject = async (object) => {
    const target = store.getResourcePath(object.bucket, object.key, 'object');
    const written = await writeAtomically(target, object.content, tempDirectory);
    await store.putMetadata(object.bucket, object.key, object.metadata, written.md5);
    return written;
  };
  store.putPart = async (bucket, uploadId, partNumber, content) => {
    const target = join(store.getResourcePath(bucket, undefined, 'uploads'), uploadId, String(partNumber));
    const written = await writeAtomically(target, content, tempDirectory);
    await writeFile(`${target}.md5`, written.md5);
    return written;
  };
};
