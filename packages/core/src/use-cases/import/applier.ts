import { EditConflictError, PreconditionFailedError } from '../../errors.js';
import { fileEtag } from '../../model/etags.js';
import type { FileRecord } from '../../model/records.js';
import type { RecordsTransaction } from '../../ports/records.js';
import type { JsonObject } from '../../validation/schemas.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { MAX_CHANGESET_ATTEMPTS } from '../changesets/apply.js';
import { commitChangeset } from '../changesets/commit.js';
import { operationFailed, type PlannedFile, StalePlan } from '../changesets/plan.js';
import type { MdStoreContext } from '../context.js';
import type { FileDates } from '../files/steps.js';
import type { ImportSpool, SpooledFile } from './spool.js';

/**
 * The operations an import applies: the `put` and `delete` of a changeset (extensions §9), with the
 * content in the import's spool (its digest known), the metadata the file must end with, and the
 * `if_match` that pins the file the import compared against (its ETag then, or null: it did not exist).
 */
export type ImportOperation =
  | {
      readonly op: 'put';
      readonly filename: string;
      readonly content: Pick<SpooledFile, 'ref' | 'sha256'>;
      readonly metadata: JsonObject | null;
      readonly ifMatch: string | null;
      /** The dates the file takes when the import creates it (an importer that keeps dates). */
      readonly dates?: FileDates;
    }
  | { readonly op: 'delete'; readonly filename: string; readonly ifMatch: string };

export interface ImportApplyInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly message: string;
  readonly dryRun: boolean;
  readonly operations: readonly ImportOperation[];
  /** Where the puts' contents are. */
  readonly spool: ImportSpool;
  readonly signal?: AbortSignal;
  /** More writes of the changeset's commit transaction (the import's attachments, extensions §12). */
  readonly alsoInTransaction?: (tx: RecordsTransaction) => Promise<void>;
}

/** What applies an import's operations; `changesetId` is null for a dry run. */
export interface ImportApplier {
  apply(ctx: MdStoreContext, input: ImportApplyInput): Promise<{ readonly changesetId: string | null }>;
}

/**
 * The import as ONE changeset (extensions §9, §10), committed by the changeset's own commit
 * (`commitChangeset`): every operation in one transaction, all or nothing (after a crash too), each
 * touched file one revision carrying the changeset's id and message. The plan is made here rather than
 * from JSON operations, because an import's contents stay in its spool until the commit reads them, one
 * at a time: its puts are whole contents already checked (UTF-8, not empty, within `maxFileBytes`; the
 * archive's bounds hold the total). Each operation's `if_match` is judged against the files as read now,
 * so a file changed since the import compared it fails the import (412, the operation's index in
 * `loc`), not be overwritten; a change between this read and the commit plans again.
 */
export const changesetApplier: ImportApplier = {
  async apply(ctx, input) {
    for (let attempt = 1; attempt <= MAX_CHANGESET_ATTEMPTS; attempt++) {
      const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
      const found = await ctx.records.findFiles({
        projectId: project.id,
        filenames: input.operations.map((operation) => operation.filename),
      });
      const byName = new Map(found.map((file) => [file.filename, file]));
      const seen = new Map<string, FileRecord | null>();
      const files: PlannedFile[] = [];
      for (const [index, operation] of input.operations.entries()) {
        const origin = byName.get(operation.filename) ?? null;
        seen.set(operation.filename, origin);
        const etag = origin === null ? null : fileEtag(origin);
        if (etag !== operation.ifMatch) {
          throw operationFailed(new PreconditionFailedError(etag ?? undefined), index);
        }
        files.push(plannedFile(ctx, input.spool, operation, origin));
      }
      if (input.dryRun) return { changesetId: null };
      const changeset = { id: ctx.ids.uuid(), message: input.message };
      try {
        await commitChangeset(ctx, {
          principal: input.principal,
          plan: { project, files, touched: [], seen },
          changeset,
          keepRecords: false,
          ...(input.signal && { signal: input.signal }),
          ...(input.alsoInTransaction && { alsoInTransaction: input.alsoInTransaction }),
        });
        return { changesetId: changeset.id };
      } catch (error) {
        if (!(error instanceof StalePlan)) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(2 ** attempt, 64)));
      }
    }
    throw new EditConflictError([
      {
        loc: ['body'],
        msg: `The files changed ${MAX_CHANGESET_ATTEMPTS} times while the import was being applied; send it again`,
        type: 'concurrent_writes',
      },
    ]);
  },
};

function plannedFile(
  ctx: MdStoreContext,
  spool: ImportSpool,
  operation: ImportOperation,
  origin: FileRecord | null,
): PlannedFile {
  if (operation.op === 'delete') {
    return {
      origin: origin!,
      fileId: origin!.id,
      filename: operation.filename,
      text: null,
      metadataJson: origin!.metadataJson,
      kind: 'content',
      deleted: true,
    };
  }
  const { ref, sha256 } = operation.content;
  return {
    origin,
    fileId: origin?.id ?? ctx.ids.uuid(),
    filename: operation.filename,
    text: null,
    source: { sizeBytes: ref.size, sha256, load: () => spool.get(ref) },
    metadataJson: operation.metadata === null ? null : JSON.stringify(operation.metadata),
    ...(origin === null && operation.dates && { dates: operation.dates }),
    kind: origin ? 'content' : 'created',
    deleted: false,
  };
}

/** The applier imports use. */
export const IMPORT_APPLIER: ImportApplier = changesetApplier;

/** Whether stored metadata (JSON text or null) equals `metadata`, key order aside. */
export function sameJson(storedJson: string | null, metadata: JsonObject | null): boolean {
  if (storedJson === null || metadata === null) return storedJson === null && metadata === null;
  return canonical(JSON.parse(storedJson)) === canonical(metadata);
}

/** JSON with object keys sorted, so two equal values give the same text. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
