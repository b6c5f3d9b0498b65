import type { BaseEntry } from './state.js';

/** One side of a file now: its content's SHA-256, and on the remote side its ETag. */
export interface LocalSide {
  readonly sha256: string;
}
export interface RemoteSide {
  readonly sha256: string;
  readonly etag: string;
  readonly revision?: number;
}

/**
 * What a sync does with one file. `ifMatch` is the remote ETag the write is conditioned on, so that a
 * remote change made after the listing turns into a conflict instead of being overwritten; `expect` is
 * what the local file must still be before it is replaced or removed.
 */
export type Decision =
  | { readonly kind: 'none' }
  /** Both sides hold the same content: remember it (and the remote's current ETag). */
  | { readonly kind: 'record' }
  /** Local content goes up: a new remote file (`ifMatch` undefined) or a replacement. */
  | { readonly kind: 'upload'; readonly ifMatch: string | undefined }
  /** Remote content comes down, replacing a local file with `expect` or creating one. */
  | { readonly kind: 'download'; readonly expect: 'absent' | { readonly sha256: string } }
  | { readonly kind: 'delete-remote'; readonly ifMatch: string }
  | { readonly kind: 'delete-local'; readonly expect: { readonly sha256: string } }
  /** Gone on both sides: drop the entry. */
  | { readonly kind: 'forget' }
  /** Both sides changed differently: keep both (the remote version as a conflict copy). */
  | { readonly kind: 'conflict' };

type Change = 'unchanged' | 'changed' | 'deleted';

const changeOf = (side: { sha256: string } | undefined, base: BaseEntry): Change =>
  side === undefined ? 'deleted' : side.sha256 === base.sha256 ? 'unchanged' : 'changed';

/**
 * The three-way decision for one file, from the base (both sides at the last sync), the local file and
 * the remote file. Changes are judged by content (SHA-256): a metadata-only remote change is not a content
 * change. A change beats a deletion (the changed file comes back on the other side), so no edit is ever
 * lost to a delete; both sides changed to the same content is not a conflict (that is also how a sync
 * interrupted after a transfer but before its state was written resumes without moving anything again).
 *
 * | local \ remote | unchanged      | changed                         | deleted       |
 * | -------------- | -------------- | ------------------------------- | ------------- |
 * | unchanged      | none (record¹) | download                        | delete local  |
 * | changed        | upload         | conflict (record if same)       | upload (new)  |
 * | deleted        | delete remote  | download (new)                  | forget        |
 * | no base        | local only: upload; remote only: download; both: record if same, else conflict |
 *
 * ¹ record when the remote ETag moved (a metadata change), so later writes send the current ETag.
 */
export function decide(
  base: BaseEntry | undefined,
  local: LocalSide | undefined,
  remote: RemoteSide | undefined,
): Decision {
  if (base === undefined) {
    if (local === undefined && remote === undefined) return { kind: 'none' };
    if (remote === undefined) return { kind: 'upload', ifMatch: undefined };
    if (local === undefined) return { kind: 'download', expect: 'absent' };
    return local.sha256 === remote.sha256 ? { kind: 'record' } : { kind: 'conflict' };
  }
  const l = changeOf(local, base);
  const r = changeOf(remote, base);
  if (l === 'unchanged' && r === 'unchanged') {
    return remote!.etag === base.etag ? { kind: 'none' } : { kind: 'record' };
  }
  if (l === 'unchanged' && r === 'changed') return { kind: 'download', expect: { sha256: base.sha256 } };
  if (l === 'unchanged' && r === 'deleted') return { kind: 'delete-local', expect: { sha256: base.sha256 } };
  if (l === 'changed' && r === 'unchanged') return { kind: 'upload', ifMatch: remote!.etag };
  if (l === 'changed' && r === 'changed') {
    return local!.sha256 === remote!.sha256 ? { kind: 'record' } : { kind: 'conflict' };
  }
  if (l === 'changed' && r === 'deleted') return { kind: 'upload', ifMatch: undefined };
  if (l === 'deleted' && r === 'unchanged') return { kind: 'delete-remote', ifMatch: remote!.etag };
  if (l === 'deleted' && r === 'changed') return { kind: 'download', expect: 'absent' };
  return { kind: 'forget' };
}
