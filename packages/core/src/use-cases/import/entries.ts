import { isMdStoreError } from '../../errors.js';
import { checkAttachmentPath, checkUploadFilename } from '../../validation/schemas.js';
import { MANIFEST_NAME } from './limits.js';

/** What an archive entry is, as the archive says (not as its name suggests). */
export type ArchiveEntryKind = 'file' | 'directory' | 'symlink' | 'other';

/**
 * One entry of an archive as a reader hands it over, in archive order. The reader has already applied
 * the archive-wide bounds (total size, entry count, compression ratio) to what it has seen so far.
 */
export interface ArchiveEntry {
  /** The name as stored, decoded to text (`/`-separated), not yet judged. */
  readonly name: string;
  readonly kind: ArchiveEntryKind;
  /** The uncompressed size the archive declares. */
  readonly size: number;
  /** When the entry was last modified, as the archive says (milliseconds since 1970), if it says. */
  readonly modifiedAt?: number;
  /**
   * The entry's bytes (at most `size`; a reader fails if more come). Call it at most once, before asking
   * for the next entry; an entry not read is skipped by the reader.
   */
  read(): Promise<Uint8Array>;
}

/** An archive, entry after entry; the iteration fails with a 413/422 as soon as a bound is passed. */
export type ImportArchive = AsyncIterable<ArchiveEntry>;

export interface SkippedEntry {
  readonly name: string;
  readonly reason: string;
}

/** What becomes of an entry by its name and kind alone (before its bytes are read). */
export type EntryVerdict =
  | { readonly take: 'file'; readonly filename: string }
  /** Not Markdown: an attachment (extensions §12) at that path. */
  | { readonly take: 'attachment'; readonly path: string }
  | { readonly take: 'manifest' }
  | { readonly take: 'skip'; readonly reason: string };

export const SKIP_REASONS = {
  directory: 'directory',
  symlink: 'symlink or link',
  special: 'not a regular file',
  absolute: 'absolute path',
  parent: 'path leaves the archive (..)',
  dotFolder: 'dot folder or dot file',
  /** An attachment whose bytes are not what its type says (extensions §12). */
  wrongType: 'its bytes are not what its content type says',
  duplicate: 'duplicate name',
  tooLarge: 'over the size limit',
  notText: 'not UTF-8 text',
  empty: 'empty file',
  /** Extensions §14: the importing key is confined to folders this name is not under. */
  outsideKey: "outside the key's folders",
} as const;

const skip = (reason: string): EntryVerdict => ({ take: 'skip', reason });

/**
 * Judges an entry (extensions §10): directories, links, absolute paths, `..` and dot folders
 * (`.obsidian/`, `.git/`…) are skipped; a Markdown name is then held to the filename rules of an
 * upload, any other to those of an attachment path (extensions §12; their message becomes the reason). A leading `./` is dropped. The
 * root's `mdstore.json` is the manifest.
 */
export function entryVerdict(name: string, kind: ArchiveEntryKind): EntryVerdict {
  if (kind === 'directory') return skip(SKIP_REASONS.directory);
  if (kind === 'symlink') return skip(SKIP_REASONS.symlink);
  if (kind !== 'file') return skip(SKIP_REASONS.special);
  if (/^([/\\]|[a-zA-Z]:)/.test(name)) return skip(SKIP_REASONS.absolute);
  const segments = name.split('/');
  while (segments.length > 1 && segments[0] === '.') segments.shift();
  if (segments.some((segment) => segment === '..' || segment.split('\\').includes('..'))) {
    return skip(SKIP_REASONS.parent);
  }
  const filename = segments.join('/');
  if (filename === MANIFEST_NAME) return { take: 'manifest' };
  if (segments.some((segment) => segment.startsWith('.') && segment !== '.')) {
    return skip(SKIP_REASONS.dotFolder);
  }
  if (!/\.mdx?$/i.test(filename)) {
    const wrong = attachmentPathProblem(filename);
    return wrong === undefined ? { take: 'attachment', path: filename } : skip(wrong);
  }
  const broken = filenameProblem(filename);
  return broken === undefined ? { take: 'file', filename } : skip(broken);
}

/** Why `filename` breaks the filename rules (the upload's message), or undefined. */
export function filenameProblem(filename: string): string | undefined {
  try {
    checkUploadFilename(filename, ['archive']);
    return undefined;
  } catch (error) {
    if (!isMdStoreError(error)) throw error;
    const issues = (error as { issues?: ReadonlyArray<{ msg: string }> }).issues;
    return `breaks the filename rules: ${issues?.[0]?.msg ?? error.message}`;
  }
}

/** Why `path` breaks the rules of an attachment path (extensions §12), or undefined. */
export function attachmentPathProblem(path: string): string | undefined {
  try {
    checkAttachmentPath(path, ['archive']);
    return undefined;
  } catch (error) {
    if (!isMdStoreError(error)) throw error;
    const issues = (error as { issues?: ReadonlyArray<{ msg: string }> }).issues;
    return `breaks the attachment path rules: ${issues?.[0]?.msg ?? error.message}`;
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The entry's bytes as text, or undefined when they are not UTF-8. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}
