import { contentLinks } from '../../links/work.js';
import { fileEtag } from '../../model/etags.js';
import type { AttachmentRecord, FileRecord } from '../../model/records.js';
import type { JsonObject } from '../../validation/schemas.js';
import { compareCodePoints } from '../../validation/text.js';
import { assertRole, assertWholeProjectReach, inPathScope, loadOwnedProject } from '../access.js';
import { type StagedAttachments, stageAttachments } from '../attachments/staged.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { type DeferredBody, deferred } from '../deferred-body.js';
import { IMPORT_APPLIER, type ImportOperation, sameJson } from './applier.js';
import {
  type AttachmentOperation,
  sameAttachment,
  stagedOperation,
  storedAttachments,
} from './attachments.js';
import { filenameProblem, type ImportArchive, SKIP_REASONS, type SkippedEntry } from './entries.js';
import { type Importer, importerReadsLinks, importerRewrite } from './importers.js';
import { type ReadArchive, readImportArchive, sha256Of } from './read.js';
import { type ImportSpool, memorySpool, type SpooledAttachment, type SpooledFile } from './spool.js';
import { Turns } from './turns.js';

export type { ImportApplier, ImportApplyInput, ImportOperation } from './applier.js';
export { canonical, changesetApplier, IMPORT_APPLIER } from './applier.js';
export * from './entries.js';
export * from './importers.js';
export { IMPORT_LIMITS, MANIFEST_NAME } from './limits.js';
export { echoedName, SkippedList } from './skipped.js';
export {
  type ImportSpool,
  memorySpool,
  type SpooledAttachment,
  type SpooledFile,
  type SpoolRef,
} from './spool.js';

export const IMPORT_MODES = ['merge', 'replace'] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];

export interface ImportProjectInput {
  readonly principal: Principal;
  readonly projectId: string;
  /** `merge` (default) keeps files the archive lacks; `replace` deletes them and needs the `admin` role. */
  readonly mode?: ImportMode;
  /** Work out the answer, change nothing. */
  readonly dryRun?: boolean;
  readonly importer?: Importer;
  /** The changeset's message (default `import`). */
  readonly message?: string;
  /** The archive, or (HTTP) the body it comes in, read once access has been checked. */
  readonly archive: ImportArchive | DeferredBody<ImportArchive>;
  /**
   * Opens the spool the archive's Markdown contents are kept in until the commit reads them (the
   * server's: a temporary file); by default `memorySpool`. The import closes it when it is over.
   */
  readonly spool?: () => Promise<ImportSpool>;
  readonly signal?: AbortSignal;
}

/**
 * The answer of an import (extensions §10); names in code-point order. Attachments (extensions §12) are
 * listed with the files, by path (a name ends in `.md`/`.mdx` exactly when it is a file's).
 */
export interface ImportResult {
  /** Null when nothing was applied (a dry run, or nothing to change). */
  readonly changesetId: string | null;
  readonly created: string[];
  readonly updated: string[];
  readonly unchanged: string[];
  readonly deleted: string[];
  /** At most `IMPORT_ANSWER_LIMITS.skippedMax` entries, each name cut to `nameMaxBytes`. */
  readonly skipped: SkippedEntry[];
  /** Skipped entries not listed in `skipped` (past its bound). */
  readonly skippedOmitted: number;
}

/**
 * Import (extensions §10): access (and `admin` for `replace`) first, then the archive is read whole
 * (its bounds refuse it before anything is written), each Markdown content put in the spool as it comes
 * (the import then holds names and digests, not texts), the importer cleans the files (one text at a
 * time), and each is compared with the stored file of its name by digest: same content and metadata is
 * `unchanged` (no revision), else `created`/`updated`; `replace` deletes the files the archive lacks.
 * Everything that changes is applied as one changeset, whose commit reads the contents back one at a
 * time.
 */
export async function importProject(ctx: MdStoreContext, input: ImportProjectInput): Promise<ImportResult> {
  const mode = input.mode ?? 'merge';
  if (mode === 'replace') assertRole(input.principal, 'admin');
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  // Extensions §14: a replace deletes what the archive lacks, everywhere: not for a key confined to folders.
  if (mode === 'replace') assertWholeProjectReach(input.principal);
  const body = deferred(input.archive);
  body.check();
  const spool = input.spool ? await input.spool() : memorySpool();
  try {
    const read = await readImportArchive(ctx, await body.read(), spool);
    const skipped = read.skipped;
    const importer = input.importer ?? 'plain';
    const imported = await importedFiles(ctx, importer, read, spool);
    skipped.push(...imported.skipped);
    const files: SpooledFile[] = [];
    const taken = new Set<string>();
    for (const file of imported.files) {
      const problem = taken.has(file.filename)
        ? SKIP_REASONS.duplicate
        : (filenameProblem(file.filename) ??
          (inPathScope(input.principal, file.filename) ? undefined : SKIP_REASONS.outsideKey));
      if (problem !== undefined) {
        skipped.push({ name: file.filename, reason: problem });
        continue;
      }
      taken.add(file.filename);
      files.push(file);
    }
    const attachments: SpooledAttachment[] = [];
    for (const attachment of read.attachments) {
      if (!inPathScope(input.principal, attachment.path)) {
        skipped.push({ name: attachment.path, reason: SKIP_REASONS.outsideKey });
        continue;
      }
      attachments.push(attachment);
    }
    const stored = await storedFiles(ctx, project.id);
    // Extensions §12: `obsidian` keeps each note's dates from the archive (for the notes it creates).
    const plan = planImport(files, stored, mode, { keepDates: importer === 'obsidian' });
    const attached = planAttachments(attachments, await storedAttachments(ctx, project.id), mode);
    const answer = mergeAnswers(plan.answer, attached.answer);
    const dryRun = input.dryRun === true;
    // The attachments are written before the changeset and committed in its transaction (attachments.ts).
    let staged: StagedAttachments | undefined;
    if (!dryRun && attached.operations.length > 0) {
      staged = await stageAttachments(ctx, {
        principal: input.principal,
        project,
        operations: attached.operations.map((operation) => stagedOperation(spool, operation)),
        ...(input.signal && { signal: input.signal }),
      });
    }
    let applied: { readonly changesetId: string | null } | null;
    try {
      // A dry run judges the operations too, so that it fails where the import would (412).
      applied =
        plan.operations.length > 0 || staged !== undefined
          ? await IMPORT_APPLIER.apply(ctx, {
              principal: input.principal,
              projectId: project.id,
              message: input.message ?? 'import',
              dryRun,
              operations: plan.operations,
              spool,
              ...(input.signal && { signal: input.signal }),
              ...(staged && { alsoInTransaction: async (tx) => void (await staged!.commit(tx)) }),
            })
          : null;
    } catch (error) {
      await staged?.discard();
      throw error;
    }
    await staged?.cleanUp();
    return {
      changesetId: applied?.changesetId ?? null,
      ...answer,
      skipped: skipped.entries,
      skippedOmitted: skipped.omitted,
    };
  } finally {
    await spool.close();
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const ENCODER = new TextEncoder();

/**
 * The files after the importer: renamed, and each text it rewrites read from the spool, rewritten and
 * put back (its digest anew), one at a time. A text the rewriting took past `maxFileBytes` is skipped.
 * An importer that reads links gets each file's as the link index finds them (`contentLinks`: the
 * scanner, else the parse within the rule of work on user content; past it, none, and the file stays
 * as it is).
 */
async function importedFiles(
  ctx: MdStoreContext,
  importer: Importer,
  read: Pick<ReadArchive, 'files' | 'attachments'>,
  spool: ImportSpool,
): Promise<{ files: SpooledFile[]; skipped: SkippedEntry[] }> {
  const { files } = read;
  const rewrite = importerRewrite(
    importer,
    files.map((file) => file.filename),
    read.attachments.map((attachment) => attachment.path),
  );
  if (rewrite === undefined) return { files: [...files], skipped: [] };
  const readsLinks = importerReadsLinks(importer);
  const turns = new Turns();
  const out: SpooledFile[] = [];
  const skipped: SkippedEntry[] = [];
  for (const file of files) {
    const text = UTF8.decode(await spool.get(file.ref));
    const links = readsLinks
      ? await contentLinks(ctx.contentWork, { text, truncated: false, filename: file.filename })
      : null;
    const rewritten = rewrite({ filename: file.filename, text }, links === 'too_large' ? null : links);
    await turns.after(text.length);
    if (rewritten.text === text) {
      out.push({ ...file, filename: rewritten.filename });
      continue;
    }
    const bytes = ENCODER.encode(rewritten.text);
    if (bytes.byteLength > ctx.settings.maxFileBytes) {
      skipped.push({ name: file.filename, reason: SKIP_REASONS.tooLarge });
      continue;
    }
    out.push({
      ...file,
      filename: rewritten.filename,
      ref: await spool.put(bytes),
      sha256: sha256Of(ctx, bytes),
    });
  }
  return { files: out, skipped };
}

type StoredFile = Pick<FileRecord, 'id' | 'revision' | 'filename' | 'sha256' | 'metadataJson'>;

/** Every file of the project, page by page (the facts the comparison needs, no content). */
async function storedFiles(ctx: MdStoreContext, projectId: string): Promise<Map<string, StoredFile>> {
  const stored = new Map<string, StoredFile>();
  let after: { filename: string } | undefined;
  for (;;) {
    const rows = await ctx.records.listFilePage({
      projectId,
      sort: 'filename',
      descending: false,
      prefix: '',
      limit: 500,
      ...(after && { after }),
    });
    for (const row of rows) stored.set(row.filename, row);
    const last = rows.at(-1);
    if (last === undefined || rows.length < 500) return stored;
    after = { filename: last.filename };
  }
}

type ImportAnswer = Omit<ImportResult, 'changesetId' | 'skipped' | 'skippedOmitted'>;

/** The files' and the attachments' lists as one answer, each in code-point order. */
function mergeAnswers(a: ImportAnswer, b: ImportAnswer): ImportAnswer {
  const merged = (x: string[], y: string[]) => [...x, ...y].sort(compareCodePoints);
  return {
    created: merged(a.created, b.created),
    updated: merged(a.updated, b.updated),
    unchanged: merged(a.unchanged, b.unchanged),
    deleted: merged(a.deleted, b.deleted),
  };
}

/**
 * What an import changes among stored things of one kind (files, attachments), each item judged against
 * the stored one of its name, in code-point order: the same is `unchanged`, else `updated` or `created`
 * with its operation; `replace` deletes what is stored and not in the archive.
 */
function planAgainstStored<Item, Stored, Operation>(
  items: readonly Item[],
  stored: ReadonlyMap<string, Stored>,
  mode: ImportMode,
  rule: {
    readonly name: (item: Item) => string;
    readonly same: (item: Item, current: Stored) => boolean;
    readonly write: (item: Item, current: Stored | null) => Operation;
    readonly remove: (name: string, current: Stored) => Operation;
  },
): { operations: Operation[]; answer: ImportAnswer } {
  const operations: Operation[] = [];
  const answer: ImportAnswer = { created: [], updated: [], unchanged: [], deleted: [] };
  const present = new Set<string>();
  for (const item of [...items].sort((a, b) => compareCodePoints(rule.name(a), rule.name(b)))) {
    const name = rule.name(item);
    present.add(name);
    const current = stored.get(name) ?? null;
    if (current !== null && rule.same(item, current)) {
      answer.unchanged.push(name);
      continue;
    }
    (current ? answer.updated : answer.created).push(name);
    operations.push(rule.write(item, current));
  }
  if (mode === 'replace') {
    for (const [name, current] of [...stored].sort(([a], [b]) => compareCodePoints(a, b))) {
      if (present.has(name)) continue;
      answer.deleted.push(name);
      operations.push(rule.remove(name, current));
    }
  }
  return { operations, answer };
}

/**
 * What the import does to the attachments (extensions §12): same bytes and type as stored is
 * `unchanged`, else created or updated; `replace` deletes those the archive lacks.
 */
export function planAttachments(
  attachments: readonly SpooledAttachment[],
  stored: ReadonlyMap<string, AttachmentRecord>,
  mode: ImportMode,
): { operations: AttachmentOperation[]; answer: ImportAnswer } {
  return planAgainstStored<SpooledAttachment, AttachmentRecord, AttachmentOperation>(
    attachments,
    stored,
    mode,
    {
      name: (attachment) => attachment.path,
      same: (attachment, current) => sameAttachment(current, attachment),
      write: (attachment, current) => ({ op: 'attach', attachment, current }),
      remove: (path, current) => ({ op: 'detach', path, current }),
    },
  );
}

/**
 * What the import changes: an operation per created, updated or deleted file, and the answer's lists.
 * Compares digests, so it holds no text: each put names its content in the spool. A file without
 * metadata in the archive keeps the stored file's.
 */
export function planImport(
  files: readonly SpooledFile[],
  stored: ReadonlyMap<string, StoredFile>,
  mode: ImportMode,
  o: { readonly keepDates?: boolean } = {},
): { operations: ImportOperation[]; answer: ImportAnswer } {
  const metadataOf = (file: SpooledFile, existing: StoredFile | null): JsonObject | null =>
    file.metadata !== undefined
      ? file.metadata
      : existing?.metadataJson
        ? (JSON.parse(existing.metadataJson) as JsonObject)
        : null;
  return planAgainstStored<SpooledFile, StoredFile, ImportOperation>(files, stored, mode, {
    name: (file) => file.filename,
    same: (file, existing) =>
      existing.sha256 === file.sha256 && sameJson(existing.metadataJson, metadataOf(file, existing)),
    write: (file, existing) => ({
      op: 'put',
      filename: file.filename,
      content: { ref: file.ref, sha256: file.sha256 },
      metadata: metadataOf(file, existing),
      ifMatch: existing ? fileEtag(existing) : null,
      ...(o.keepDates && existing === null && file.dates && { dates: file.dates }),
    }),
    remove: (filename, existing) => ({ op: 'delete', filename, ifMatch: fileEtag(existing) }),
  });
}
