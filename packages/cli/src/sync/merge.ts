import { MdStoreApiError, type MdStoreClient } from '@mdstore/client';
import { mergeDocument } from '@mdstore/core/merge';
import { sha256Hex, writeLocal } from './local.js';
import type { BaseEntry } from './state.js';

/**
 * `sync` merges (extensions §13, issue 38): a file changed on both sides since the last sync is merged
 * three ways (the core's merge engine: text by lines, front matter key by key) with the revision both
 * sides had then as the base. The state already keeps that revision's ETag (and number), so the base
 * text is read from the file's history on the server (`GET …/revisions/{n}`), and checked against the
 * SHA-256 the state recorded; nothing more is kept locally. When there is no such revision any more
 * (pruned by `keep_revisions`), the texts are not UTF-8, the merge is past its bound, or the edits
 * overlap, the answer is undefined and the caller keeps today's conflict copy: nothing is ever lost.
 *
 * A clean merge is written to the server first, conditioned on the remote ETag it merged (`If-Match`:
 * a remote write meanwhile is a 412, and the sync looks again and merges anew), then to the local file,
 * conditioned on the local content it merged (a local edit meanwhile is `LocalChangedError`, the same
 * race). The state records the merged version only after both.
 */
export async function mergeBothSides(
  client: MdStoreClient,
  projectId: string,
  root: string,
  name: string,
  base: BaseEntry,
  local: { bytes: Uint8Array; sha256: string },
  remote: { bytes: Uint8Array; etag: string },
): Promise<{ sha256: string; etag: string; revision: number } | undefined> {
  const localText = utf8(local.bytes);
  const remoteText = utf8(remote.bytes);
  if (localText === undefined || remoteText === undefined) return undefined;
  const baseText = await baseTextOf(client, projectId, name, base);
  if (baseText === undefined) return undefined;
  let merged: string;
  try {
    const result = mergeDocument(baseText, remoteText, localText);
    if (result.kind === 'conflict') return undefined;
    merged = result.text;
  } catch (error) {
    // MERGE_TOO_LARGE: past the merge's bound, a conflict copy as before.
    if ((error as { code?: unknown }).code === 'MERGE_TOO_LARGE') return undefined;
    throw error;
  }
  const bytes = new TextEncoder().encode(merged);
  const sha256 = sha256Hex(bytes);
  const written = await client.files.updateContent(projectId, name, bytes, { ifMatch: remote.etag, sha256 });
  await writeLocal(root, name, bytes, { sha256: local.sha256 });
  return { sha256: written.sha256, etag: written.etag, revision: written.revision };
}

/** The text both sides had at the last sync, from the file's kept revisions; undefined when gone. */
async function baseTextOf(
  client: MdStoreClient,
  projectId: string,
  name: string,
  base: BaseEntry,
): Promise<string | undefined> {
  try {
    let revision = base.revision;
    if (revision === undefined) {
      for await (const kept of client.history.iterateRevisions(projectId, name, { pageSize: 1000 })) {
        if (kept.etag === base.etag) {
          revision = kept.revision;
          break;
        }
      }
    }
    if (revision === undefined) return undefined;
    const download = await client.history.downloadRevision(projectId, name, revision);
    const bytes = await download.bytes();
    // The revision must be the very content the state recorded (a file deleted and created again
    // restarts its revisions).
    if (sha256Hex(bytes) !== base.sha256) return undefined;
    return utf8(bytes);
  } catch (error) {
    if (error instanceof MdStoreApiError && error.status === 404) return undefined;
    throw error;
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function utf8(bytes: Uint8Array): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}
