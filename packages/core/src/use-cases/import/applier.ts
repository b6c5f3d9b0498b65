import type { JsonObject } from '../../validation/schemas.js';
import type { Principal } from '../authentication.js';
import { applyChangeset } from '../changesets/index.js';
import type { MdStoreContext } from '../context.js';

/**
 * The operations an import applies: the `put` and `delete` of a changeset (extensions §9), with the
 * content as UTF-8 text, the metadata the file must end with, and the `if_match` that pins the file the
 * import compared against (its ETag then, or null: it did not exist).
 */
export type ImportOperation =
  | {
      readonly op: 'put';
      readonly filename: string;
      readonly content: string;
      readonly metadata: JsonObject | null;
      readonly ifMatch: string | null;
    }
  | { readonly op: 'delete'; readonly filename: string; readonly ifMatch: string };

export interface ImportApplyInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly message: string;
  readonly dryRun: boolean;
  readonly operations: readonly ImportOperation[];
  readonly signal?: AbortSignal;
}

/** What applies an import's operations; `changesetId` is null for a dry run. */
export interface ImportApplier {
  apply(ctx: MdStoreContext, input: ImportApplyInput): Promise<{ readonly changesetId: string | null }>;
}

/**
 * The import as ONE changeset (extensions §9, §10): every operation in one transaction, all or nothing
 * (after a crash too), each touched file one revision carrying the changeset's id and message. Its
 * content limit is the import's (`maxImportBytes`), not a changeset request's. Each operation's
 * `if_match` makes a file changed since the import compared it fail the import (412), not be overwritten.
 */
export const changesetApplier: ImportApplier = {
  async apply(ctx, input) {
    const result = await applyChangeset(ctx, {
      principal: input.principal,
      projectId: input.projectId,
      message: input.message,
      dryRun: input.dryRun,
      maxContentBytes: ctx.settings.maxImportBytes,
      operations: input.operations.map((operation) =>
        operation.op === 'put'
          ? {
              op: 'put',
              filename: operation.filename,
              content: operation.content,
              metadata: operation.metadata,
              if_match: operation.ifMatch,
            }
          : { op: 'delete', filename: operation.filename, if_match: operation.ifMatch },
      ),
      ...(input.signal && { signal: input.signal }),
    });
    return { changesetId: result.changesetId };
  },
};

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
