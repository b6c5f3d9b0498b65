import * as v from 'valibot';
import { bytesMatchType, contentTypeOfName, essenceOf } from '../../attachments/content-types.js';
import { ATTACHMENT_LIMITS } from '../../defaults/attachments.js';
import { InvalidInputError } from '../../errors.js';
import { type JsonObject, MetadataSchema } from '../../validation/schemas.js';
import type { MdStoreContext } from '../context.js';
import type { FileDates } from '../files/steps.js';
import { entryVerdict, type ImportArchive, SKIP_REASONS, utf8Text } from './entries.js';
import { IMPORT_LIMITS } from './limits.js';
import { SkippedList } from './skipped.js';
import type { ImportSpool, SpooledAttachment, SpooledFile } from './spool.js';
import { Turns } from './turns.js';

/**
 * The Markdown files of an archive (their bytes in the spool), with the metadata its manifest gives
 * them, and what was skipped.
 */
export interface ReadArchive {
  readonly files: SpooledFile[];
  /** The attachments (extensions §12), each judged against its type. */
  readonly attachments: SpooledAttachment[];
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
 * Any other entry that passes the rules and `maxAttachmentBytes` is an attachment: its bytes go to the
 * spool as well, and its first bytes are kept to judge its type once the manifest is read.
 * Duplicates keep the first. The archive's own bounds fail the iteration before anything is written;
 * `mdstore.json` (anywhere in the archive) then gives each file its metadata and each attachment its
 * `content_type` (else its type goes by its extension); an attachment whose bytes are not what its type
 * says is skipped.
 */
export async function readImportArchive(
  ctx: MdStoreContext,
  archive: ImportArchive,
  spool: ImportSpool,
): Promise<ReadArchive> {
  const maxFileBytes = ctx.settings.maxFileBytes;
  const files: SpooledFile[] = [];
  const attachments: PendingAttachment[] = [];
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
    if (verdict.take === 'attachment') {
      const reason = takeProblem(seen, verdict.path, entry.size, ctx.settings.maxAttachmentBytes);
      if (reason !== undefined) {
        skipped.push({ name: entry.name, reason });
        continue;
      }
      const bytes = await entry.read();
      await turns.after(bytes.length);
      seen.add(verdict.path);
      attachments.push({
        path: verdict.path,
        ref: await spool.put(bytes),
        sha256: sha256Of(ctx, bytes),
        head: bytes.slice(0, ATTACHMENT_LIMITS.sniffBytes),
      });
      continue;
    }
    const reason = takeProblem(seen, verdict.filename, entry.size, maxFileBytes);
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
    files.push({
      filename: verdict.filename,
      ref: await spool.put(bytes),
      sha256: sha256Of(ctx, bytes),
      ...(entry.modifiedAt !== undefined && {
        dates: { createdAt: entry.modifiedAt, updatedAt: entry.modifiedAt },
      }),
    });
  }
  if (manifestBytes === undefined) {
    return { files, attachments: typed(attachments, new Map(), skipped), skipped, manifest: false };
  }
  const manifest = parseManifest(manifestBytes);
  const typesOf = new Map<string, string>();
  for (const entry of manifest.attachments ?? []) typesOf.set(entry.path, entry.content_type);
  return {
    ...withManifest(files, skipped, manifest),
    attachments: typed(attachments, typesOf, skipped),
    manifest: true,
  };
}

/** Why an entry of a name already taken, or past its size limit, is skipped; undefined when it is not. */
const takeProblem = (seen: ReadonlySet<string>, name: string, size: number, max: number) =>
  seen.has(name) ? SKIP_REASONS.duplicate : size > max ? SKIP_REASONS.tooLarge : undefined;

/** Lower-case hex SHA-256 of bytes an import keeps. */
export const sha256Of = (ctx: MdStoreContext, bytes: Uint8Array): string => {
  const hash = ctx.hashing.sha256();
  hash.update(bytes);
  return hash.digestHex();
};

/** An attachment read, its type not yet judged: its first bytes are kept for that. */
type PendingAttachment = Omit<SpooledAttachment, 'contentType'> & { readonly head: Uint8Array };

/**
 * Each attachment with its type (the manifest's when it gives a media type, else by its extension),
 * judged against its first bytes by the checks of an upload; one that fails them is skipped.
 */
function typed(
  pending: readonly PendingAttachment[],
  typesOf: ReadonlyMap<string, string>,
  skipped: SkippedList,
): SpooledAttachment[] {
  const out: SpooledAttachment[] = [];
  for (const { head, ...attachment } of pending) {
    const declared = typesOf.get(attachment.path)?.trim();
    const contentType =
      declared !== undefined &&
      declared.length <= ATTACHMENT_LIMITS.contentTypeMaxLength &&
      essenceOf(declared) !== null
        ? declared
        : contentTypeOfName(attachment.path);
    if (!bytesMatchType(contentType, head)) {
      skipped.push({
        name: attachment.path,
        reason: `${SKIP_REASONS.wrongType} (${essenceOf(contentType)})`,
      });
      continue;
    }
    out.push({ ...attachment, contentType });
  }
  return out;
}

const manifestError = (what: string) =>
  new InvalidInputError([{ loc: MANIFEST_LOC, msg: `mdstore.json ${what}`, type: 'value_error' }]);

const ManifestSchema = v.object({
  files: v.array(
    v.object({
      filename: v.string(),
      metadata: v.nullish(v.unknown()),
      // An export's dates (extensions §10): an importer that keeps dates takes them before the entry's.
      created_date: v.optional(v.unknown()),
      updated_date: v.optional(v.unknown()),
    }),
  ),
  // Extensions §12: absent in the manifests written before attachments.
  attachments: v.optional(v.array(v.object({ path: v.string(), content_type: v.string() }))),
});

type Manifest = v.InferOutput<typeof ManifestSchema>;

function parseManifest(bytes: Uint8Array): Manifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8Text(bytes) ?? '');
  } catch {
    throw manifestError('is not valid JSON');
  }
  const manifest = v.safeParse(ManifestSchema, parsed);
  if (!manifest.success) throw manifestError('does not have the shape of an export manifest');
  return manifest.output;
}

/**
 * Each file the manifest names gets its metadata (a file whose metadata breaks the rules is skipped) and
 * its dates, when the manifest gives both as instants (else it keeps its entry's).
 */
function withManifest(
  files: SpooledFile[],
  skipped: SkippedList,
  manifest: Manifest,
): Pick<ReadArchive, 'files' | 'skipped'> {
  const described = new Map<string, Manifest['files'][number]>();
  for (const entry of manifest.files) described.set(entry.filename, entry);
  const kept: SpooledFile[] = [];
  for (const file of files) {
    const entry = described.get(file.filename);
    if (entry === undefined) {
      kept.push(file);
      continue;
    }
    const metadata = entry.metadata ?? null;
    const valid = metadata === null || v.is(MetadataSchema, metadata);
    if (!valid) {
      skipped.push({ name: file.filename, reason: 'its metadata in mdstore.json breaks the rules' });
      continue;
    }
    const dates = manifestDates(entry);
    kept.push({ ...file, metadata: metadata as JsonObject | null, ...(dates && { dates }) });
  }
  return { files: kept, skipped };
}

/** `created_date` and `updated_date` of a manifest entry, when both are ISO 8601 instants. */
function manifestDates(entry: { created_date?: unknown; updated_date?: unknown }): FileDates | undefined {
  const createdAt = instant(entry.created_date);
  const updatedAt = instant(entry.updated_date);
  return createdAt === undefined || updatedAt === undefined ? undefined : { createdAt, updatedAt };
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

function instant(value: unknown): number | undefined {
  if (typeof value !== 'string' || !ISO_INSTANT.test(value)) return undefined;
  const time = Date.parse(value);
  return Number.isFinite(time) ? time : undefined;
}
