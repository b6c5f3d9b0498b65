import { DRAFT_LIMITS } from '../../defaults/drafts.js';
import { InvalidInputError, isMdStoreError, MergeConflictError } from '../../errors.js';
import { type ConflictHunk, type JsonObject, mergeDocument, mergeMetadata } from '../../merge/index.js';
import { fileEtag } from '../../model/etags.js';
import type { DraftFileRecord, DraftRecord, ProjectRecord } from '../../model/records.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { applyChangeset, type FileChangeResult, isFileResult } from '../changesets/index.js';
import type { MdStoreContext } from '../context.js';
import { draftBase } from './base.js';
import { draftViewOf } from './manage.js';
import {
  assertOpen,
  type DraftView,
  emitDraftEvent,
  loadDraft,
  lockedDraft,
  nextUpdate,
  StaleDraft,
} from './shared.js';
import { draftContentLimit, liveText } from './stage.js';

/**
 * `POST …/drafts/{id}/publish` (extensions §13): the draft applied as ONE changeset (§9), whose
 * transaction also marks the draft published and commits its `draft.published` event: all of it or
 * nothing, after a crash too (the changeset's write path: contents staged before, one transaction).
 * Each revision carries the changeset's id and the draft's title as message.
 *
 * A file whose ETag is still the draft's base is written as proposed. A file changed since is merged
 * three ways (base: the revision with the base ETag, from history; current; draft) with the merge
 * engine: text by lines, front matter and metadata key by key; a clean merge that took changes of both
 * sides is listed in `merged`. Any overlap refuses the publish (409 `Draft conflicts` with every file's
 * hunks; a metadata key is a hunk at line 0 with `key: JSON value` texts) and nothing changes. A file
 * the draft deletes that changed since is a conflict; one already gone is left alone. A move moves the
 * file as it is now. Every operation carries the ETag the merge read as `if_match`: a write between the
 * merge and the commit makes it fail, and the publish is merged again (`DRAFT_LIMITS.publishAttempts`).
 */

export interface PublishedDraft {
  readonly draft: DraftView;
  readonly changesetId: string;
  readonly merged: readonly string[];
  readonly files: readonly FileChangeResult[];
}

interface Prepared {
  readonly operations: Record<string, unknown>[];
  readonly merged: string[];
}

export async function publishDraft(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; draftId: string; signal?: AbortSignal },
): Promise<PublishedDraft> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  for (let attempt = 1; ; attempt++) {
    const draft = await loadDraft(ctx.records, project, input.draftId);
    assertOpen(draft);
    const rows = await ctx.records.listDraftFiles({ draftId: draft.id, limit: DRAFT_LIMITS.maxFiles });
    if (rows.length === 0) {
      throw new InvalidInputError([
        {
          loc: ['path', 'draft_id'],
          msg: 'Value error, the draft has no operations to publish',
          type: 'value_error',
        },
      ]);
    }
    const prepared = await prepare(ctx, project, rows, input.signal);
    // Read before the commit: after it, nothing may fail the request (a publish that answers an error
    // must have changed nothing). The commit's lock finds the draft unchanged since these reads.
    const reviews = await ctx.records.listDraftReviews({ draftId: draft.id, limit: DRAFT_LIMITS.maxReviews });
    let published: DraftRecord | undefined;
    try {
      const result = await applyChangeset(ctx, {
        principal: input.principal,
        projectId: project.id,
        message: draft.title,
        operations: prepared.operations,
        signal: input.signal,
        maxContentBytes: draftContentLimit(ctx),
        alsoInTransaction: async (tx, changesetId) => {
          const locked = await lockedDraft(tx, draft);
          published = { ...locked, state: 'published', changesetId, updatedAt: nextUpdate(ctx, locked) };
          await tx.updateDraft({ draft: published });
          await emitDraftEvent(ctx, tx, { draft: published, type: 'draft.published', changesetId });
        },
      });
      return {
        draft: draftViewOf(published!, rows, reviews),
        changesetId: result.changesetId!,
        merged: prepared.merged,
        // A draft holds file operations only (extensions §13).
        files: result.files.filter(isFileResult),
      };
    } catch (error) {
      const retry =
        error instanceof StaleDraft ||
        (isMdStoreError(error, 'PRECONDITION_FAILED') && attempt < DRAFT_LIMITS.publishAttempts);
      if (!retry || attempt >= DRAFT_LIMITS.publishAttempts) throw error;
    }
  }
}

/** The changeset's operations, every stale file merged; throws `MergeConflictError` on any overlap. */
async function prepare(
  ctx: MdStoreContext,
  project: ProjectRecord,
  rows: readonly DraftFileRecord[],
  signal: AbortSignal | undefined,
): Promise<Prepared> {
  const found = await ctx.records.findFiles({
    projectId: project.id,
    filenames: rows.map((row) => row.filename),
  });
  const live = new Map(found.map((file) => [file.filename, file]));
  const operations: Record<string, unknown>[] = [];
  const merged: string[] = [];
  const conflicts: { filename: string; hunks: ConflictHunk[] }[] = [];
  for (const row of rows) {
    const file = live.get(row.filename) ?? null;
    const current = file ? fileEtag(file) : null;
    const { filename } = row;
    if (row.op === 'move') {
      operations.push({ op: 'move', filename, to: row.to, if_match: current ?? '*' });
      continue;
    }
    if (row.op === 'delete') {
      if (!file) continue;
      if (current === row.baseEtag) {
        operations.push({ op: 'delete', filename, if_match: current });
        continue;
      }
      const text = await liveText(ctx, project, file, signal);
      const base = await draftBase(ctx, { project, row, live: file, liveText: text, signal });
      conflicts.push({ filename, hunks: [{ line: 1, base: base?.text ?? '', current: text, draft: '' }] });
      continue;
    }
    const proposed = row.content!;
    const draftMetadata =
      row.metadataJson === null ? undefined : (JSON.parse(row.metadataJson) as JsonObject | null);
    if (current === row.baseEtag) {
      operations.push(putOf(filename, proposed, draftMetadata, current));
      continue;
    }
    const text = file ? await liveText(ctx, project, file, signal) : '';
    const base = (await draftBase(ctx, { project, row, live: file, liveText: text, signal })) ?? {
      text: '',
      metadataJson: null,
    };
    const hunks: ConflictHunk[] = [];
    const textMerge = file
      ? mergeDocument(base.text, text, proposed)
      : ({ kind: 'conflict', hunks: [{ line: 1, base: base.text, current: '', draft: proposed }] } as const);
    if (textMerge.kind === 'conflict') hunks.push(...textMerge.hunks);
    let metadata = draftMetadata;
    let metadataMerged = false;
    if (draftMetadata !== undefined && file) {
      const baseMeta = parseObject(base.metadataJson);
      const currentMeta = parseObject(file.metadataJson);
      const metaMerge = mergeMetadata(baseMeta, currentMeta, draftMetadata ?? {});
      if (metaMerge.kind === 'conflict') {
        for (const key of metaMerge.keys) {
          hunks.push({
            line: 0,
            base: keyText(key, baseMeta),
            current: keyText(key, currentMeta),
            draft: keyText(key, draftMetadata ?? {}),
          });
        }
      } else {
        metadata = metaMerge.value;
        metadataMerged = metaMerge.merged;
      }
    }
    if (hunks.length > 0) {
      conflicts.push({ filename, hunks });
      continue;
    }
    if (textMerge.kind !== 'clean') continue;
    operations.push(putOf(filename, textMerge.text, metadata, current));
    if (textMerge.merged || metadataMerged) merged.push(filename);
  }
  if (conflicts.length > 0) throw new MergeConflictError(conflicts);
  return { operations, merged };
}

const putOf = (
  filename: string,
  content: string,
  metadata: JsonObject | null | undefined,
  ifMatch: string | null,
): Record<string, unknown> => ({
  op: 'put',
  filename,
  content,
  ...(metadata !== undefined && { metadata }),
  if_match: ifMatch,
});

const parseObject = (json: string | null): JsonObject => {
  const value = json === null ? null : (JSON.parse(json) as unknown);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : {};
};

const keyText = (key: string, object: JsonObject): string =>
  key in object ? `${key}: ${JSON.stringify(object[key])}` : '';
