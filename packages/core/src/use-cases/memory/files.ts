import { MEMORY_LIMITS } from '../../defaults/memory.js';
import { isMdStoreError } from '../../errors.js';
import { fileEtag } from '../../model/etags.js';
import type { FileRecord, ProjectRecord } from '../../model/records.js';
import type { ByteStream } from '../../ports/blobs.js';
import { utf8Size } from '../../validation/text.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { deleteFile } from '../files/delete.js';
import { moveFile } from '../files/move.js';
import { readText } from '../files/parts.js';
import { updateFileContent } from '../files/update-content.js';
import { uploadFile } from '../files/upload.js';
import { inTurn } from './lock.js';
import { MEMORY_TEXT, type TextOutcome } from './text.js';

/**
 * The memory commands on one file, each through the ordinary write path (upload, content update,
 * delete, move: one revision, its change event, its intents), serialised against the current content:
 * read the file and its ETag, apply the command to that text, write with `If-Match`; a `412` (another
 * writer came first) starts again on the newer content, at most `MEMORY_LIMITS.maxWriteAttempts` times
 * with a short random wait, then the command's error text.
 */

export interface MemoryFileTarget {
  readonly principal: Principal;
  readonly project: ProjectRecord;
  /** The path as the command gave it (what the texts show). */
  readonly path: string;
  /** The stored filename. */
  readonly filename: string;
  readonly signal?: AbortSignal;
}

/** A command's outcome: the text to answer, and whether it is one of the tool's errors. */
export interface MemoryOutcome {
  readonly result: string;
  readonly isError: boolean;
}

export const success = (result: string): MemoryOutcome => ({ result, isError: false });
export const failure = (result: string): MemoryOutcome => ({ result, isError: true });

async function* bytesOf(text: string): ByteStream {
  yield new TextEncoder().encode(text);
}

/**
 * The size rules of a command's result: not empty (the store keeps no empty file), not above the cap
 * (`MEMORY_LIMITS.maxFileBytes`, or the store's `maxFileBytes` when that is lower).
 */
function sizeRefusal(ctx: MdStoreContext, path: string, text: string): string | null {
  const bytes = utf8Size(text);
  const max = Math.min(MEMORY_LIMITS.maxFileBytes, ctx.settings.maxFileBytes);
  if (bytes === 0) return MEMORY_TEXT.empty(path);
  if (bytes > max) return MEMORY_TEXT.tooLarge(path, bytes, max);
  return null;
}

export async function createMemoryFile(
  ctx: MdStoreContext,
  target: MemoryFileTarget,
  text: string,
): Promise<MemoryOutcome> {
  const refused = sizeRefusal(ctx, target.path, text);
  if (refused) return failure(refused);
  try {
    await uploadFile(ctx, {
      principal: target.principal,
      projectId: target.project.id,
      filename: target.filename,
      content: bytesOf(text),
      signal: target.signal,
    });
  } catch (error) {
    if (isMdStoreError(error, 'FILENAME_TAKEN')) return failure(MEMORY_TEXT.alreadyExists(target.path));
    throw error;
  }
  return success(MEMORY_TEXT.created(target.path));
}

/** `view` of a file: its text (bounded), numbered by `render`. */
export async function readMemoryFile(
  ctx: MdStoreContext,
  target: MemoryFileTarget,
  file: FileRecord,
  render: (text: string) => TextOutcome,
): Promise<MemoryOutcome> {
  if (file.sizeBytes > MEMORY_LIMITS.maxViewBytes) {
    return failure(MEMORY_TEXT.tooLargeToView(target.path, file.sizeBytes, MEMORY_LIMITS.maxViewBytes));
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const current =
      attempt === 0
        ? file
        : await ctx.records.findFile({ projectId: target.project.id, filename: target.filename });
    if (!current) break;
    const text = await readText(ctx, target.project, current, target.signal);
    if (text === null) continue;
    const outcome = render(text);
    return outcome.ok ? success(outcome.result) : failure(outcome.error);
  }
  return failure(MEMORY_TEXT.goneConcurrently(target.path));
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A random wait before attempt `attempt` (1-based, the first waits nothing), doubling up to the cap. */
const backoff = (attempt: number): number =>
  attempt <= 1 ? 0 : Math.random() * Math.min(MEMORY_LIMITS.maxRetryDelayMs, 2 ** (attempt - 2));

/**
 * Runs `attempt` (which writes with `If-Match` = the ETag of the record it read) until it does not lose
 * to another writer; in this process one command per file at a time.
 */
async function untilItLands(
  ctx: MdStoreContext,
  target: MemoryFileTarget,
  missing: () => Promise<string>,
  attempt: (file: FileRecord, ifMatch: string) => Promise<MemoryOutcome | null>,
): Promise<MemoryOutcome> {
  return inTurn(ctx, `${target.project.id}\n${target.filename}`, async () => {
    for (let n = 1; n <= MEMORY_LIMITS.maxWriteAttempts; n++) {
      await wait(backoff(n));
      const file = await ctx.records.findFile({ projectId: target.project.id, filename: target.filename });
      if (!file) return failure(n === 1 ? await missing() : MEMORY_TEXT.goneConcurrently(target.path));
      try {
        const outcome = await attempt(file, fileEtag(file));
        if (outcome) return outcome;
      } catch (error) {
        if (isMdStoreError(error, 'FILE_NOT_FOUND'))
          return failure(MEMORY_TEXT.goneConcurrently(target.path));
        if (!isMdStoreError(error, 'PRECONDITION_FAILED')) throw error;
      }
    }
    return failure(MEMORY_TEXT.busy(target.path, MEMORY_LIMITS.maxWriteAttempts));
  });
}

/**
 * `str_replace` and `insert`: `change` applied to the current text; the result written as the file's
 * next revision if nobody wrote in between. `missing` words a file that is not there.
 */
export function changeMemoryFile(
  ctx: MdStoreContext,
  target: MemoryFileTarget,
  missing: () => Promise<string>,
  change: (text: string) => TextOutcome,
): Promise<MemoryOutcome> {
  return untilItLands(ctx, target, missing, async (file, ifMatch) => {
    if (file.sizeBytes > MEMORY_LIMITS.maxViewBytes) {
      return failure(MEMORY_TEXT.tooLargeToView(target.path, file.sizeBytes, MEMORY_LIMITS.maxViewBytes));
    }
    const text = await readText(ctx, target.project, file, target.signal);
    if (text === null) return null;
    const outcome = change(text);
    if (!outcome.ok) return failure(outcome.error);
    const refused = sizeRefusal(ctx, target.path, outcome.text);
    if (refused) return failure(refused);
    await updateFileContent(ctx, {
      principal: target.principal,
      projectId: target.project.id,
      filename: target.filename,
      content: bytesOf(outcome.text),
      conditions: { ifMatch },
      signal: target.signal,
    });
    return success(outcome.result);
  });
}

/** `delete` of a file (to the trash when the project keeps one). */
export function deleteMemoryFile(
  ctx: MdStoreContext,
  target: MemoryFileTarget,
  missing: () => Promise<string>,
): Promise<MemoryOutcome> {
  return untilItLands(ctx, target, missing, async (_file, ifMatch) => {
    await deleteFile(ctx, {
      principal: target.principal,
      projectId: target.project.id,
      filename: target.filename,
      conditions: { ifMatch },
    });
    return success(MEMORY_TEXT.deleted(target.path));
  });
}

/** `rename` of a file: a move (same file, its history kept) to `to`. */
export function renameMemoryFile(
  ctx: MdStoreContext,
  target: MemoryFileTarget,
  to: { path: string; filename: string },
  missing: () => Promise<string>,
): Promise<MemoryOutcome> {
  return untilItLands(ctx, target, missing, async (_file, ifMatch) => {
    try {
      await moveFile(ctx, {
        principal: target.principal,
        projectId: target.project.id,
        filename: target.filename,
        body: { to: to.filename },
        conditions: { ifMatch },
      });
    } catch (error) {
      if (isMdStoreError(error, 'FILENAME_TAKEN')) return failure(MEMORY_TEXT.destinationExists(to.path));
      throw error;
    }
    return success(MEMORY_TEXT.renamed(target.path, to.path));
  });
}
