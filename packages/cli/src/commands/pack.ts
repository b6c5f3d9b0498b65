import { createReadStream } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { pack } from 'tar-stream';

/** A folder's entry left out of the archive, with the reason the server would give. */
export interface LocalSkip {
  readonly name: string;
  readonly reason: string;
}

/** What a folder sends: its files (Markdown, attachments, root `mdstore.json`), by `/`-separated relative name. */
export interface FolderFiles {
  readonly files: ReadonlyArray<{ readonly name: string; readonly absolute: string; readonly size: number }>;
  readonly skipped: LocalSkip[];
}

/**
 * The files of a folder an import sends, in name order: every regular file (`.md`/`.mdx` files become
 * files, any other an attachment, extensions §12; the root's `mdstore.json` is the manifest). Left out,
 * and reported as the server would: dot folders and dot files (`.obsidian/`, `.git/`, as one line each,
 * not walked), symlinks. The server judges the names and the attachments' types.
 */
export async function folderFiles(root: string): Promise<FolderFiles> {
  const files: Array<FolderFiles['files'][number]> = [];
  const skipped: LocalSkip[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const name = `${prefix}${entry.name}`;
      const absolute = path.join(dir, entry.name);
      if (entry.name.startsWith('.'))
        skipped.push({ name: entry.isDirectory() ? `${name}/` : name, reason: 'dot folder or dot file' });
      else if (entry.isSymbolicLink()) skipped.push({ name, reason: 'symlink or link' });
      else if (entry.isDirectory()) await walk(absolute, `${name}/`);
      else if (!entry.isFile()) skipped.push({ name, reason: 'not a regular file' });
      else files.push({ name, absolute, size: (await lstat(absolute)).size });
    }
  };
  await walk(root, '');
  return { files, skipped };
}

/**
 * The folder's files as a tar.gz, made as it is read: one file open at a time, with backpressure, so
 * memory does not grow with the folder. `onFile` is told of each file as it goes in.
 */
export function packFolder(files: FolderFiles['files'], onFile: (name: string) => void = () => {}): Readable {
  const packer = pack();
  const output = packer.pipe(createGzip());
  (async () => {
    for (const file of files) {
      onFile(file.name);
      const sink = packer.entry({ name: file.name, size: file.size, type: 'file' });
      await pipeline(createReadStream(file.absolute), sink);
    }
    packer.finalize();
  })().catch((error: unknown) => output.destroy(error instanceof Error ? error : new Error(String(error))));
  return output;
}

/** A Node stream as the web stream `fetch` sends. */
export const webStreamOf = (stream: Readable) =>
  Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;
