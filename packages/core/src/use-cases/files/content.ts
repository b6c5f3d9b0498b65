import { concatBytes } from '../../bytes.js';
import { ContentTooLargeError, isMdStoreError, ProjectNotFoundError } from '../../errors.js';
import type { ContentLinks } from '../../links/entry.js';
import { LinkTextCollector } from '../../links/text.js';
import type { BlobIntentRecord, ProjectRecord } from '../../model/records.js';
import type { ByteStream } from '../../ports/blobs.js';
import type { RecordsTransaction } from '../../ports/records.js';
import { ContentTextCollector } from '../../search/content-text.js';
import { parseFrontmatter } from '../../search/frontmatter.js';
import { searchableContentText } from '../../search/index-document.js';
import { checkedContent } from '../../validation/content.js';
import { digestMismatch } from '../../validation/schemas.js';
import { removeDoomed, withStagedResource } from '../blob-intents.js';
import type { MdStoreContext } from '../context.js';
import { newContentKey } from './shared.js';

/** A content version as it was received and stored. */
export interface StoredContent {
  readonly contentKey: string;
  readonly inline: boolean;
  readonly sizeBytes: number;
  /** Lower-case hex SHA-256, computed while the content streamed in. */
  readonly sha256: string;
  /** The text search indexes: the content's first 1 MiB, collected while it streamed in. */
  readonly searchText: string;
  /** The content's YAML front matter as JSON (extensions §3), read from `searchText`, or null. */
  readonly frontmatterJson: string | null;
  /** Its links for the link index (extensions §9), found before the transaction. */
  readonly links: ContentLinks;
}

/** A digest the client declared, and where it came from (the `loc` of a mismatch). */
export interface ExpectedDigest {
  readonly hex: string;
  readonly loc: readonly (string | number)[];
}

export interface ContentInput {
  readonly content: ByteStream;
  /** `loc` of content problems (400, 413): `["body"]` for a content update, `["body","file"]` for an upload. */
  readonly loc: readonly (string | number)[];
  /** SHA-256 digests the client says it sent (`Content-Digest`, `Repr-Digest`, the upload's `sha256`). */
  readonly expectedSha256?: readonly ExpectedDigest[];
  /** The name the content is stored under: its links are resolved from its folder (and `.mdx` is MDX). */
  readonly filename: string;
  readonly signal?: AbortSignal;
}

/** What a committed write hands back: its result, and blob versions to remove now that it committed. */
export interface Committed<R> {
  readonly result: R;
  readonly doomed: readonly BlobIntentRecord[];
}

/**
 * Content checked as it streams: UTF-8 validity and non-emptiness (see `checkedContent`), and the first
 * 1 MiB of its text for search and front matter, read from `text` once the stream is over. Size and
 * SHA-256 are not judged here: `storeContent` counts and hashes the inline form's buffered bytes once,
 * and the blob store (the one place bytes of the blob form are counted and hashed) reports them for
 * the blob form.
 */
function inspected(input: ContentInput) {
  const text = new ContentTextCollector();
  const linkText = new LinkTextCollector();
  async function* stream(): ByteStream {
    for await (const chunk of checkedContent(input.content, { loc: input.loc })) {
      text.push(chunk);
      linkText.push(chunk);
      yield chunk;
    }
  }
  return {
    stream: stream(),
    text: () => searchFields(text.text()),
    links: (ctx: MdStoreContext) => linksOfText(ctx, linkText.text(), input.filename, input.signal),
  };
}

/** The links of a content's text (null: past the links' size bound), bounded (links/work.ts). */
export function linksOfText(
  ctx: MdStoreContext,
  text: string | null,
  filename: string,
  signal?: AbortSignal,
): Promise<ContentLinks> {
  return ctx.linkIndexing.find(ctx.contentWork, {
    text: text ?? '',
    truncated: text === null,
    filename,
    signal,
  });
}

/** A declared digest that does not match what was stored: 400 at the digest's `loc`. */
function checkDeclaredDigests(input: ContentInput, sha256: string): void {
  const wrong = input.expectedSha256?.find((expected) => expected.hex !== sha256);
  if (wrong) throw digestMismatch(wrong.loc);
}

/**
 * What a content version gives search: its front matter (read from the first 1 MiB) and the text a
 * store keeps for search (cut after the last indexed word).
 */
export function searchFields(text: string): Pick<StoredContent, 'searchText' | 'frontmatterJson'> {
  const frontmatter = parseFrontmatter(text);
  return {
    searchText: searchableContentText(text),
    frontmatterJson: frontmatter === null ? null : JSON.stringify(frontmatter),
  };
}

/** The head of a stream: whole when `rest` is null, else the first chunks and the iterator of the rest. */
async function readHead(stream: ByteStream, maxBytes: number) {
  const iterator = stream[Symbol.asyncIterator]();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const next = await iterator.next();
    if (next.done) return { chunks, size, rest: null };
    chunks.push(next.value);
    size += next.value.byteLength;
    if (size > maxBytes) return { chunks, size, rest: iterator };
  }
}

async function* replay(chunks: readonly Uint8Array[], rest: AsyncIterator<Uint8Array>): ByteStream {
  yield* chunks;
  for (;;) {
    const next = await rest.next();
    if (next.done) return;
    yield next.value;
  }
}

/**
 * Receives a new content version of the file `fileId` and commits it with `commit`, in one of two forms
 * chosen while streaming:
 * - up to `inlineMaxBytes`: buffered, then written inline by the same transaction as the records that
 *   point to it: one transaction, no staging note, no blob I/O;
 * - beyond: spilled to the blob store under a new key through the staged path (note, write, commit).
 * `prepare` runs once the whole content is in and valid, before the transaction (e.g. to judge form
 * fields that came after the file). Blob versions the commit dooms are removed after it.
 */
export async function storeContent<P, R>(
  ctx: MdStoreContext,
  target: { project: ProjectRecord; fileId: string },
  input: ContentInput,
  prepare: () => Promise<P>,
  commit: (tx: RecordsTransaction, stored: StoredContent, prepared: P) => Promise<Committed<R>>,
): Promise<R> {
  const { project } = target;
  const contentKey = newContentKey(ctx, target.fileId);
  const checked = inspected(input);
  const { maxFileBytes, inlineMaxBytes } = ctx.settings;
  // The head decides the form; it is never buffered beyond the size limit.
  const head = await readHead(checked.stream, Math.min(inlineMaxBytes, maxFileBytes));
  if (head.rest !== null && head.size > maxFileBytes) {
    await head.rest.return?.();
    throw new ContentTooLargeError(maxFileBytes);
  }
  let committed: Committed<R>;
  if (head.rest === null) {
    // Inline: the whole content is in memory and within the limit; it is hashed here, once.
    const bytes = concatBytes(head.chunks, head.size);
    const hash = ctx.hashing.sha256();
    hash.update(bytes);
    const stored: StoredContent = {
      contentKey,
      inline: true,
      sizeBytes: head.size,
      sha256: hash.digestHex(),
      ...checked.text(),
      links: await checked.links(ctx),
    };
    checkDeclaredDigests(input, stored.sha256);
    const prepared = await prepare();
    committed = await ctx.records.withTransaction(async (tx) => {
      await tx.insertInlineContent({ projectId: project.id, contentKey, bytes });
      return commit(tx, stored, prepared);
    });
  } else {
    const rest = head.rest;
    committed = await withStagedResource(
      ctx,
      { bucket: project.bucketName, key: contentKey },
      async (deadline) => {
        const blob = await putBlob(ctx, project, contentKey, replay(head.chunks, rest), [
          input.signal,
          deadline,
        ]);
        // Blob: the blob store counted (against `maxFileBytes`) and hashed the bytes as it wrote them.
        const stored: StoredContent = {
          contentKey,
          inline: false,
          sizeBytes: blob.sizeBytes,
          sha256: blob.sha256,
          ...checked.text(),
          links: await checked.links(ctx),
        };
        // A mismatch fails the write after the blob is written: `withStagedResource` removes it again.
        checkDeclaredDigests(input, stored.sha256);
        return { stored, prepared: await prepare() };
      },
      (tx, { stored, prepared }) => commit(tx, stored, prepared),
    );
  }
  for (const doomed of committed.doomed) await removeDoomed(ctx, doomed);
  return committed.result;
}

/**
 * Writes a blob of a project under its new key (a file's, an attachment's), translating the blob
 * store's refusals into domain errors: past `maxBytes` it is 413; a missing bucket is the project deleted
 * meanwhile (its deletion removes the bucket), so 404, never a 500.
 */
export async function putBlob(
  ctx: MdStoreContext,
  project: ProjectRecord,
  key: string,
  content: ByteStream,
  signals: readonly (AbortSignal | undefined)[],
  maxBytes: number = ctx.settings.maxFileBytes,
) {
  try {
    return await ctx.blobs.put({
      bucket: project.bucketName,
      key,
      content,
      maxBytes,
      signal: AbortSignal.any(signals.filter((signal) => signal !== undefined)),
    });
  } catch (error) {
    if (isMdStoreError(error, 'BLOB_TOO_LARGE')) throw new ContentTooLargeError(maxBytes);
    if (isMdStoreError(error, 'BUCKET_NOT_FOUND')) throw new ProjectNotFoundError(project.id);
    throw error;
  }
}
