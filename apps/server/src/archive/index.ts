import type { ProjectExport } from '@mdstore/core';
import { MANIFEST_NAME, ManifestBuilder } from './manifest.js';
import { tarGzWriter } from './tar.js';
import type { ArchiveWriter } from './writer.js';
import { zipWriter } from './zip.js';

export { MANIFEST_NAME } from './manifest.js';

/** The archive formats of an export (extensions §10), with their media type and file extension. */
export const EXPORT_FORMATS = {
  zip: { contentType: 'application/zip', extension: 'zip', writer: zipWriter },
  'tar.gz': { contentType: 'application/gzip', extension: 'tar.gz', writer: tarGzWriter },
} as const satisfies Record<string, { contentType: string; extension: string; writer: () => ArchiveWriter }>;

export type ExportFormat = keyof typeof EXPORT_FORMATS;

export const isExportFormat = (value: string): value is ExportFormat => Object.hasOwn(EXPORT_FORMATS, value);

/**
 * The archive of an export: every file at its filename, then every attachment at its path (extensions
 * §12; one at `mdstore.json` is left out and listed as skipped), then `mdstore.json` describing exactly
 * the versions written. Returns the output at once; the files are read while it is consumed, one at a time,
 * so memory does not grow with the contents (only the manifest's small entries are kept). A failure
 * midway destroys the output with the error (the archive is then incomplete, never silently short).
 */
export function writeExportArchive(
  exported: ProjectExport,
  format: ExportFormat,
  now: () => Date = () => new Date(),
): ArchiveWriter['output'] {
  const writer = EXPORT_FORMATS[format].writer();
  const manifest = new ManifestBuilder(exported.project);
  // The reader went away (or the output failed): stop reading files.
  const stop = new AbortController();
  writer.output.once('close', () => stop.abort(new Error('The archive output was closed')));
  const run = async () => {
    for await (const { file, content } of exported.files) {
      stop.signal.throwIfAborted();
      const refused = writer.refuses(file.filename);
      if (refused !== undefined) {
        manifest.skip(file.filename, refused);
        await drain(content);
        continue;
      }
      const entry = { name: file.filename, size: file.sizeBytes, mtime: new Date(file.updatedAt) };
      await writer.add(entry, content, stop.signal);
      manifest.add(file);
    }
    for await (const { attachment, content } of exported.attachments) {
      stop.signal.throwIfAborted();
      const refused =
        attachment.path === MANIFEST_NAME ? 'the manifest has that name' : writer.refuses(attachment.path);
      if (refused !== undefined) {
        manifest.skip(attachment.path, refused);
        await drain(content);
        continue;
      }
      const entry = {
        name: attachment.path,
        size: attachment.sizeBytes,
        mtime: new Date(attachment.updatedAt),
      };
      await writer.add(entry, content, stop.signal);
      manifest.addAttachment(attachment);
    }
    await writer.finish(MANIFEST_NAME, manifest.bytes(), now());
  };
  run().catch((error: unknown) => writer.abort(error instanceof Error ? error : new Error(String(error))));
  return writer.output;
}

/** Closes an opened content without using it. */
async function drain(content: AsyncIterable<Uint8Array>): Promise<void> {
  const iterator = content[Symbol.asyncIterator]();
  await iterator.return?.();
}
