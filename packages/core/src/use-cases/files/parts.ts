import { FileNotFoundError, InvalidInputError, isMdStoreError } from '../../errors.js';
import { outlineWithin } from '../../markdown/content-work.js';
import { LINES_LOC, lineAt, lineStarts, parseLineRange, sliceLines } from '../../markdown/lines.js';
import type { Outline, OutlineHeading } from '../../markdown/outline.js';
import { findSectionWithin, type HeadingPath } from '../../markdown/sections.js';
import { turnAfterLargeStep } from '../../markdown/work-budget.js';
import type { FileRecord, ProjectRecord } from '../../model/records.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { type ContentHold, TEXT_BYTES_PER_BYTE, withContentHold } from '../content-budget.js';
import type { MdStoreContext } from '../context.js';
import { type FileView, toFileView } from '../views.js';
import { checkReadConditions, conditionsOf, type RequestConditions } from './conditions.js';
import { openContent } from './download.js';
import { findFileOr404 } from './shared.js';

/**
 * Parts of a file as text (extensions §4): lines, a section, the outline. Each reads one whole version
 * of the content and works on its decoded text; what is sent is sliced from it, so every byte of a
 * part is the file's own (line endings, BOM, front matter).
 */

/** `.mdx` files are parsed as MDX, every other file as CommonMark. */
export const isMdxFilename = (filename: string): boolean => /\.mdx$/i.test(filename);

/** UTF-8 as stored: a BOM stays in the text (it is part of the bytes a part is cut from). */
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The whole content of this version of the file as text, or null when the version is gone. With a
 * `hold`, the text's memory is reserved from the content budget first (content-budget.ts), which may
 * wait. The bytes are gathered into one buffer of the recorded size as they come (no list of chunks
 * beside it), and dropped once decoded: the bytes and the text are held together only while decoding.
 */
export async function readText(
  ctx: MdStoreContext,
  project: ProjectRecord,
  file: FileRecord,
  signal?: AbortSignal,
  hold?: ContentHold,
): Promise<string | null> {
  const content = await openContent(ctx, project, file, null, signal);
  if (content === null) return null;
  await hold?.reserve(textReservation(file.sizeBytes));
  let bytes: Uint8Array;
  try {
    bytes = await gather(content, file.sizeBytes);
  } catch (error) {
    // Removed while it was being read: the caller reads the record again.
    if (isMdStoreError(error, 'BLOB_NOT_FOUND')) return null;
    throw error;
  }
  const text = decoder.decode(bytes);
  // Concatenating and decoding a large content is a step of its own: other requests go first now.
  await turnAfterLargeStep(text);
  return text;
}

/** What reading a text of `sizeBytes` holds: its bytes while decoding, then the text. */
export const textReservation = (sizeBytes: number): number => sizeBytes * TEXT_BYTES_PER_BYTE;

/**
 * A content's bytes in one buffer: a single chunk as it is (inline content), else copied into a buffer
 * of the expected size chunk by chunk (grown if the content turns out longer, cut if shorter).
 */
export async function gather(content: AsyncIterable<Uint8Array>, expected: number): Promise<Uint8Array> {
  let first: Uint8Array | undefined;
  let buffer: Uint8Array | undefined;
  let size = 0;
  for await (const chunk of content) {
    if (first === undefined && buffer === undefined) {
      first = chunk;
      size = chunk.byteLength;
      continue;
    }
    if (buffer === undefined) {
      buffer = new Uint8Array(Math.max(expected, size + chunk.byteLength));
      buffer.set(first!, 0);
      first = undefined;
    }
    if (size + chunk.byteLength > buffer.byteLength) {
      const grown = new Uint8Array(Math.max(buffer.byteLength * 2, size + chunk.byteLength));
      grown.set(buffer.subarray(0, size), 0);
      buffer = grown;
    }
    buffer.set(chunk, size);
    size += chunk.byteLength;
  }
  if (buffer !== undefined) return buffer.subarray(0, size);
  return first ?? new Uint8Array(0);
}

/**
 * The current record and its text, read again when a concurrent write pruned the version in between:
 * the caller always works on one whole version. `proceed` judges each record read (preconditions);
 * when it says no, the text is not read (null). `known` is a record the caller has just read and judged
 * itself: the first attempt reads its text without looking the file up again.
 */
export async function currentText(
  ctx: MdStoreContext,
  project: ProjectRecord,
  filename: string,
  o: {
    signal?: AbortSignal;
    proceed?: (file: FileRecord) => boolean;
    known?: FileRecord;
    /** The request's share of the content budget: the text is reserved from it before it is read. */
    hold?: ContentHold;
  },
): Promise<{ file: FileRecord; text: string | null }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const known = attempt === 0 ? o.known : undefined;
    const file = known ?? (await findFileOr404(ctx.records, project.id, filename));
    if (!known && o.proceed && !o.proceed(file)) return { file, text: null };
    const text = await readText(ctx, project, file, o.signal, o.hold);
    if (text !== null) return { file, text };
  }
  throw new FileNotFoundError(filename);
}

export interface ReadPartInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly filename: string;
  readonly conditions?: RequestConditions;
  /** `?lines=a-b`, as sent. */
  readonly lines?: string;
  /**
   * `?section=`, once per heading path element, outer first (an array, even of one); an MCP call may
   * send one heading text (a string), which must then be unique in the file (markdown/sections.ts).
   */
  readonly section?: HeadingPath;
  readonly signal?: AbortSignal;
}

export type PartRead =
  | { readonly kind: 'not-modified'; readonly file: FileView }
  | {
      readonly kind: 'part';
      readonly file: FileView;
      /** The part, exactly as in the file. */
      readonly text: string;
      /** The lines sent (for `?lines=`, the last one clipped) and the file's line count. */
      readonly lines: { readonly first: number; readonly last: number; readonly total: number };
      /** `?section=`: the heading of the section sent. */
      readonly heading: OutlineHeading | null;
    };

const SECTION_LOC = ['query', 'section'] as const;

/** Refusals that need no file: a malformed `lines`, or `lines` and `section` together (422). */
function checkPartQuery(input: ReadPartInput): { first: number; last: number } | null {
  if (input.lines !== undefined && input.section !== undefined) {
    throw new InvalidInputError([
      {
        loc: LINES_LOC,
        msg: 'Value error, lines and section cannot be used together',
        type: 'value_error',
      },
    ]);
  }
  return input.lines === undefined ? null : parseLineRange(input.lines);
}

/**
 * `GET …/files/{filename}?lines=a-b` or `?section=…`: the preconditions of a download (304, 412), then
 * the part. Lines outside the file are 422 `["query","lines"]`; a section that matches no heading or
 * several is 409 (`section_not_found`, `section_ambiguous`).
 */
export async function readFilePart(ctx: MdStoreContext, input: ReadPartInput): Promise<PartRead> {
  const range = checkPartQuery(input);
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId, input.filename);
  const conditions = conditionsOf(input.conditions);
  return withContentHold(ctx.contentBudget, input.signal, (hold) =>
    readPart(ctx, project, input, { range, conditions, hold }),
  );
}

async function readPart(
  ctx: MdStoreContext,
  project: ProjectRecord,
  input: ReadPartInput,
  o: {
    range: { first: number; last: number } | null;
    conditions: ReturnType<typeof conditionsOf>;
    hold: ContentHold;
  },
): Promise<PartRead> {
  const { range, conditions } = o;
  const read = await currentText(ctx, project, input.filename, {
    signal: input.signal,
    proceed: (file) => checkReadConditions(file, conditions) === 'proceed',
    hold: o.hold,
  });
  const file = toFileView(read.file, project, ctx.blobs.scheme);
  if (read.text === null) return { kind: 'not-modified', file };
  const text = read.text;
  if (range) {
    const slice = sliceLines(text, range.first, range.last);
    return {
      kind: 'part',
      file,
      text: slice.text,
      lines: { first: slice.first, last: slice.last, total: slice.total },
      heading: null,
    };
  }
  const path = input.section ?? [];
  const section = await findSectionWithin(ctx.contentWork, text, path, {
    mdx: isMdxFilename(input.filename),
    loc: SECTION_LOC,
    signal: input.signal,
  });
  const starts = lineStarts(text);
  return {
    kind: 'part',
    file,
    text: text.slice(section.start, section.end),
    lines: { first: section.heading.line, last: lineAt(starts, section.end - 1), total: starts.length },
    heading: section.heading,
  };
}

export interface FileOutline extends Outline {
  readonly file: FileView;
}

/**
 * `GET …/files/{filename}/outline`: headings with their paths and links, from one whole parse (links
 * included) of the current version: inline under one step's bound, else in `ctx.contentWork` (a worker
 * pool in the server); refused (413) past its bounds (markdown/content-work.ts).
 */
export async function readOutline(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; filename: string; signal?: AbortSignal },
): Promise<FileOutline> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId, input.filename);
  return withContentHold(ctx.contentBudget, input.signal, async (hold) => {
    const read = await currentText(ctx, project, input.filename, { signal: input.signal, hold });
    const text = read.text!;
    const found = await outlineWithin(
      ctx.contentWork,
      { text, mdx: isMdxFilename(input.filename) },
      input.signal,
    );
    return { ...found, file: toFileView(read.file, project, ctx.blobs.scheme) };
  });
}
