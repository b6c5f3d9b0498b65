import * as v from 'valibot';
import { InvalidInputError } from '../../errors.js';
import { type JsonObject, MetadataSchema } from '../../validation/schemas.js';
import type { MdStoreContext } from '../context.js';
import { entryVerdict, type ImportArchive, SKIP_REASONS, utf8Text } from './entries.js';
import { IMPORT_LIMITS } from './limits.js';
import { SkippedList } from './skipped.js';
import type { ImportSpool, SpooledFile } from './spool.js';
import { Turns } from './turns.js';

/**
 * The Markdown files of an archive (their bytes in the spool), with the metadata its manifest gives
 * them, and what was skipped.
 */
export interface ReadArchive {
  readonly files: SpooledFile[];
  /** Bounded: at most `skippedMax` entries, names cut (`SkippedList`). */
  readonly skipped: SkippedList;
  /** Whether the archive had an `mdstore.json`. */
  readonly manifest: boolean;
}

const MANIFEST_LOC = ['body', 'mdstore.json'] as const;

/**
 * Reads every entry of the archive once, in order: each Markdown entry that passes the entry rules and
 * the size limit is read (its bytes must be UTF-8), hashed and put in the spool, so that only one
 * entry's bytes are in memory at a time; every other one is skipped with its reason without being read.
 * Duplicates keep the first. The archive's own bounds fail the iteration before anything is written;
 * `mdstore.json` (anywhere in the archive) then gives each file its metadata.
 */
export async function readImportArchive(
  ctx: MdStoreContext,
  archive: ImportArchive,
  spool: ImportSpool,
): Promise<ReadArchive> {
  const maxFileBytes = ctx.settings.maxFileBytes;
  const files: SpooledFile[] = [];
  const skipped = new SkippedList();
  const seen = new Set<string>();
  let manifestBytes: Uint8Array | undefined;
  const turns = new Turns();
  for await (const entry of archive) {
    const verdict = entryVerdict(entry.name, entry.kind);
    if (verdict.take === 'manifest') {
      if (entry.size > IMPORT_LIMITS.maxManifestBytes) throw manifestError('is too large');
      manifestBytes = await entry.read();
      continue;
    }
    if (verdict.take === 'skip') {
      skipped.push({ name: entry.name, reason: verdict.reason });
      continue;
    }
    const reason = seen.has(verdict.filename)
      ? SKIP_REASONS.duplicate
      : entry.size > maxFileBytes
        ? SKIP_REASONS.tooLarge
        : undefined;
    if (reason !== undefined) {
      skipped.push({ name: entry.name, reason });
      continue;
    }
    const bytes = await entry.read();
    const text = bytes.byteLength === 0 ? '' : utf8Text(bytes);
    await turns.after(bytes.length);
    if (text === undefined || text === '') {
      skipped.push({ name: entry.name, reason: text === '' ? SKIP_REASONS.empty : SKIP_REASONS.notText });
      continue;
    }
    seen.add(verdict.filename);
    const hash = ctx.hashing.sha256();
    hash.update(bytes);
    files.push({ filename: verdict.filename, ref: await spool.put(bytes), sha256: hash.digestHex() });
  }
  if (manifestBytes === undefined) return { files, skipped, manifest: false };
  return { ...withManifest(files, skipped, manifestBytes), manifest: true };
}

const manifestError = (what: string) =>
  new InvalidInputError([{ loc: MANIFEST_LOC, msg: `mdstore.json ${what}`, type: 'value_error' }]);

const ManifestSchema = v.object({
  files: v.array(v.object({ filename: v.string(), metadata: v.nullish(v.unknown()) })),
});

/** Each file the manifest names gets its metadata; a file whose metadata breaks the rules is skipped. */
function withManifest(
  files: SpooledFile[],
  skipped: SkippedList,
  bytes: Uint8Array,
): Pick<ReadArchive, 'files' | 'skipped'> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8Text(bytes) ?? '');
  } catch {
    throw manifestError('is not valid JSON');
  }
  const manifest = v.safeParse(ManifestSchema, parsed);
  if (!manifest.success) throw manifestError('does not have the shape of an export manifest');
  const metadataOf = new Map<string, unknown>();
  for (const entry of manifest.output.files) metadataOf.set(entry.filename, entry.metadata ?? null);
  const kept: SpooledFile[] = [];
  for (const file of files) {
    if (!metadataOf.has(file.filename)) {
      kept.push(file);
      continue;
    }
    const metadata = metadataOf.get(file.filename);
    const valid = metadata === null || v.is(MetadataSchema, metadata);
    if (!valid)
      skipped.push({ name: file.filename, reason: 'its metadata in mdstore.json breaks the rules' });
    else kept.push({ ...file, metadata: metadata as JsonObject | null });
  }
  return { files: kept, skipped };
}
