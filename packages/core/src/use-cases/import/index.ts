import { fileEtag } from '../../model/etags.js';
import type { FileRecord } from '../../model/records.js';
import type { JsonObject } from '../../validation/schemas.js';
import { assertRole, loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { type DeferredBody, deferred } from '../deferred-body.js';
import { IMPORT_APPLIER, type ImportOperation, sameJson } from './applier.js';
import { filenameProblem, type ImportArchive, type SkippedEntry } from './entries.js';
import { applyImporter, type ImportedFile, type Importer } from './importers.js';
import { readImportArchive } from './read.js';
import { Turns } from './turns.js';

export type { ImportApplier, ImportApplyInput, ImportOperation } from './applier.js';
export { canonical, changesetApplier, IMPORT_APPLIER } from './applier.js';
export * from './entries.js';
export * from './importers.js';
export { IMPORT_LIMITS, MANIFEST_NAME } from './limits.js';

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
  readonly signal?: AbortSignal;
}

/** The answer of an import (extensions §10); filenames in code-point order. */
export interface ImportResult {
  /** Null when nothing was applied (a dry run, or nothing to change). */
  readonly changesetId: string | null;
  readonly created: string[];
  readonly updated: string[];
  readonly unchanged: string[];
  readonly deleted: string[];
  readonly skipped: SkippedEntry[];
}

/**
 * Import (extensions §10): access (and `admin` for `replace`) first, then the archive is read whole
 * (its bounds refuse it before anything is written), the importer cleans the files, and each is compared
 * with the stored file of its name: same content and metadata is `unchanged` (no revision), else
 * `created`/`updated`; `replace` deletes the files the archive lacks. Everything that changes is applied
 * as one changeset.
 */
export async function importProject(ctx: MdStoreContext, input: ImportProjectInput): Promise<ImportResult> {
  const mode = input.mode ?? 'merge';
  if (mode === 'replace') assertRole(input.principal, 'admin');
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const body = deferred(input.archive);
  body.check();
  const read = await readImportArchive(ctx, await body.read());
  const skipped = [...read.skipped];
  const files: ImportedFile[] = [];
  for (const file of await applyImporter(input.importer ?? 'plain', read.files)) {
    const problem = filenameProblem(file.filename);
    if (problem === undefined) files.push(file);
    else skipped.push({ name: file.filename, reason: problem });
  }
  const stored = await storedFiles(ctx, project.id);
  const plan = await planImport(ctx, files, stored, mode);
  // A dry run goes through the changeset too, so that it fails where the import would (storage, 428…).
  const applied =
    plan.operations.length > 0
      ? await IMPORT_APPLIER.apply(ctx, {
          principal: input.principal,
          projectId: project.id,
          message: input.message ?? 'import',
          dryRun: input.dryRun === true,
          operations: plan.operations,
          ...(input.signal && { signal: input.signal }),
        })
      : null;
  return { changesetId: applied?.changesetId ?? null, ...plan.answer, skipped };
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

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What the import changes: an operation per created, updated or deleted file, and the answer's lists. */
export async function planImport(
  ctx: Pick<MdStoreContext, 'hashing'>,
  files: readonly ImportedFile[],
  stored: ReadonlyMap<string, StoredFile>,
  mode: ImportMode,
): Promise<{ operations: ImportOperation[]; answer: Omit<ImportResult, 'changesetId' | 'skipped'> }> {
  const turns = new Turns();
  const operations: ImportOperation[] = [];
  const answer = {
    created: [] as string[],
    updated: [] as string[],
    unchanged: [] as string[],
    deleted: [] as string[],
  };
  const present = new Set<string>();
  for (const file of [...files].sort((a, b) => byCodePoint(a.filename, b.filename))) {
    present.add(file.filename);
    const hash = ctx.hashing.sha256();
    hash.update(new TextEncoder().encode(file.text));
    const sha256 = hash.digestHex();
    await turns.after(file.text.length);
    const existing = stored.get(file.filename);
    const metadata: JsonObject | null =
      file.metadata !== undefined
        ? file.metadata
        : existing?.metadataJson
          ? (JSON.parse(existing.metadataJson) as JsonObject)
          : null;
    if (existing && existing.sha256 === sha256 && sameJson(existing.metadataJson, metadata)) {
      answer.unchanged.push(file.filename);
      continue;
    }
    (existing ? answer.updated : answer.created).push(file.filename);
    const ifMatch = existing ? fileEtag(existing) : null;
    operations.push({ op: 'put', filename: file.filename, content: file.text, metadata, ifMatch });
  }
  if (mode === 'replace') {
    for (const [filename, existing] of [...stored].sort(([a], [b]) => byCodePoint(a, b))) {
      if (present.has(filename)) continue;
      answer.deleted.push(filename);
      operations.push({ op: 'delete', filename, ifMatch: fileEtag(existing) });
    }
  }
  return { operations, answer };
}
