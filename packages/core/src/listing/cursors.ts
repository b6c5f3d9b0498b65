import type { FileKeyset, FileSortField, ProjectKeyset, TrashPosition } from '../ports/records.js';
import { type CursorBinding, decodeCursor, encodeCursor } from '../search/cursor.js';
import { invalidAt } from '../search/issues.js';
import type { FileListRequest } from './query.js';

const LOC = ['query', 'cursor'] as const;

/**
 * Where a page of a file list ends: after a file (its keyset) or after a folder of a `delimiter` list
 * (every name inside it is skipped).
 */
export type FileListPosition =
  | { readonly kind: 'file'; readonly keyset: FileKeyset }
  | { readonly kind: 'folder'; readonly folder: string };

/** What a List Files cursor is bound to: the account, the project and every parameter of the order. */
export const fileListBinding = (
  accountId: string,
  projectId: string,
  request: FileListRequest,
): CursorBinding => ({
  list: 'files',
  account: accountId,
  project: projectId,
  sort: request.sort,
  order: request.descending ? 'desc' : 'asc',
  prefix: request.prefix,
  delimiter: request.delimiter,
});

export const projectListBinding = (accountId: string): CursorBinding => ({
  list: 'projects',
  account: accountId,
});

export function encodeFilePosition(position: FileListPosition, binding: CursorBinding, key: Uint8Array) {
  const payload =
    position.kind === 'folder'
      ? { d: position.folder }
      : {
          f: position.keyset.filename,
          ...(position.keyset.value !== undefined && { v: position.keyset.value }),
        };
  return encodeCursor(payload, binding, key);
}

/**
 * The position of a List Files cursor. The MAC already proves the payload is one this service made for
 * this binding; its shape is checked anyway, so that no cursor can ever reach a query malformed.
 */
export async function decodeFilePosition(
  token: string,
  binding: CursorBinding,
  key: Uint8Array,
  sort: FileSortField,
): Promise<FileListPosition> {
  const payload = (await decodeCursor(token, binding, key, LOC)) as Record<string, unknown> | null;
  if (typeof payload === 'object' && payload !== null) {
    if (typeof payload.d === 'string' && payload.d.endsWith('/'))
      return { kind: 'folder', folder: payload.d };
    const value = payload.v;
    if (typeof payload.f === 'string' && (sort === 'filename') === (value === undefined)) {
      if (value === undefined) return { kind: 'file', keyset: { filename: payload.f } };
      if (typeof value === 'number' && Number.isSafeInteger(value))
        return { kind: 'file', keyset: { value, filename: payload.f } };
    }
  }
  throw invalidAt(LOC, 'cursor');
}

export const encodeProjectPosition = (position: ProjectKeyset, binding: CursorBinding, key: Uint8Array) =>
  encodeCursor({ c: position.createdAt, i: position.id }, binding, key);

export async function decodeProjectPosition(
  token: string,
  binding: CursorBinding,
  key: Uint8Array,
): Promise<ProjectKeyset> {
  const payload = (await decodeCursor(token, binding, key, LOC)) as Record<string, unknown> | null;
  if (
    typeof payload === 'object' &&
    payload !== null &&
    typeof payload.c === 'number' &&
    Number.isSafeInteger(payload.c) &&
    typeof payload.i === 'string'
  ) {
    return { createdAt: payload.c, id: payload.i };
  }
  throw invalidAt(LOC, 'cursor');
}

/** What a trash cursor (extensions §5) is bound to: the account and the project. */
export const trashListBinding = (accountId: string, projectId: string): CursorBinding => ({
  list: 'trash',
  account: accountId,
  project: projectId,
});

export const encodeTrashPosition = (position: TrashPosition, binding: CursorBinding, key: Uint8Array) =>
  encodeCursor({ d: position.deletedAt, i: position.id }, binding, key);

export async function decodeTrashPosition(
  token: string,
  binding: CursorBinding,
  key: Uint8Array,
): Promise<TrashPosition> {
  const payload = (await decodeCursor(token, binding, key, LOC)) as Record<string, unknown> | null;
  if (
    typeof payload === 'object' &&
    payload !== null &&
    typeof payload.d === 'number' &&
    Number.isSafeInteger(payload.d) &&
    typeof payload.i === 'string'
  ) {
    return { deletedAt: payload.d, id: payload.i };
  }
  throw invalidAt(LOC, 'cursor');
}
