import type { JsonObject } from '../../validation/schemas.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { deleteFile } from '../files/delete.js';
import { updateFileContent } from '../files/update-content.js';
import { updateFileMetadata } from '../files/update-metadata.js';
import { uploadFile } from '../files/upload.js';

/**
 * The operations an import applies: the `put` and `delete` of a changeset (extensions §9), with the
 * content as UTF-8 text and the metadata the file must end with.
 */
export type ImportOperation =
  | {
      readonly op: 'put';
      readonly filename: string;
      readonly content: string;
      readonly metadata: JsonObject | null;
      /** The SHA-256 of `content` (known already: the import compared it). */
      readonly sha256: string;
    }
  | { readonly op: 'delete'; readonly filename: string };

export interface ImportApplyInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly message: string;
  readonly operations: readonly ImportOperation[];
  readonly signal?: AbortSignal;
}

/**
 * What applies an import's operations. Meant to be the changeset use case (`applyChangeset`, extensions
 * §9: every operation in one transaction, each file one revision carrying the changeset's id and
 * message); wiring it is the one edit of `IMPORT_APPLIER` below.
 */
export interface ImportApplier {
  apply(ctx: MdStoreContext, input: ImportApplyInput): Promise<{ readonly changesetId: string }>;
}

/**
 * INTERIM, until the changesets branch is merged: the operations applied one by one with the single-file
 * use cases (each one whole, with their intents and compensation), NOT as one transaction: a crash or a
 * failure midway leaves the operations before it applied. The id names the import in the answer only.
 */
export const sequentialApplier: ImportApplier = {
  async apply(ctx, input) {
    const { principal, projectId, signal } = input;
    for (const operation of input.operations) {
      signal?.throwIfAborted();
      const filename = operation.filename;
      if (operation.op === 'delete') {
        await deleteFile(ctx, { principal, projectId, filename });
        continue;
      }
      const bytes = new TextEncoder().encode(operation.content);
      const existing = await ctx.records.findFile({ projectId, filename });
      if (existing === null) {
        const metadata = operation.metadata === null ? undefined : JSON.stringify(operation.metadata);
        await uploadFile(ctx, { principal, projectId, filename, content: once(bytes), metadata, signal });
        continue;
      }
      if (existing.sha256 !== operation.sha256) {
        await updateFileContent(ctx, { principal, projectId, filename, content: once(bytes), signal });
      }
      if (!sameJson(existing.metadataJson, operation.metadata)) {
        await updateFileMetadata(ctx, {
          principal,
          projectId,
          filename,
          body: { metadata: operation.metadata },
        });
      }
    }
    return { changesetId: ctx.ids.uuid() };
  },
};

/** The applier imports use: the one line to change when `applyChangeset` is merged. */
export const IMPORT_APPLIER: ImportApplier = sequentialApplier;

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

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
