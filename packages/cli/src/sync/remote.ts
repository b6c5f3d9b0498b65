import { MdStoreApiError, type MdStoreClient, MdStoreIntegrityError } from '@mdstore/client';
import { RemoteGoneError } from './batch.js';
import { LocalChangedError } from './local.js';
import { isSyncable } from './names.js';
import type { RemoteSide } from './plan.js';

/** Every syncable remote file by name, and the names passed over. */
export async function listRemote(
  client: MdStoreClient,
  projectId: string,
): Promise<{ files: Map<string, RemoteSide>; skipped: string[] }> {
  const files = new Map<string, RemoteSide>();
  const skipped: string[] = [];
  for await (const file of client.files.iterate(projectId, { pageSize: 1000 })) {
    if (isSyncable(file.filename)) {
      files.set(file.filename, { sha256: file.sha256, etag: file.etag, revision: file.revision });
    } else {
      skipped.push(file.filename);
    }
  }
  return { files, skipped };
}

/**
 * The remote file now (`HEAD`), or undefined when it is gone. A 404 is only taken for a missing file
 * once the project is known to still exist: a project deleted during a sync must stop it, not look like
 * every file was deleted.
 */
export async function headRemote(
  client: MdStoreClient,
  projectId: string,
  name: string,
): Promise<RemoteSide | undefined> {
  try {
    const head = await client.files.head(projectId, name);
    if (head.etag === undefined || head.sha256 === undefined) {
      throw new Error(`the server sent no ETag or Repr-Digest for ${name}`);
    }
    return { sha256: head.sha256, etag: head.etag };
  } catch (error) {
    if (!(error instanceof MdStoreApiError) || error.status !== 404) throw error;
    await client.projects.get(projectId);
    return undefined;
  }
}

/**
 * A write that found the other side no longer as planned: a remote precondition that failed (412), a
 * name taken meanwhile (409), a file gone (404), or a local file the user changed during the sync.
 * Such a file is looked at again and decided anew.
 */
export function isRace(error: unknown): boolean {
  if (error instanceof LocalChangedError) return true;
  return (
    error instanceof MdStoreApiError && (error.status === 404 || error.status === 409 || error.status === 412)
  );
}

/**
 * Whether a failure concerns one file only, so the others can go on: the server refused that file
 * (except for refusals that hold for every file: the key, the budget), its download did not
 * match its digest, or it kept changing under the sync. Anything else (the network, the disk, the state
 * file) stops the sync; what is done so far stays recorded.
 */
export function isFileFailure(error: unknown): boolean {
  if (error instanceof LocalChangedError || error instanceof MdStoreIntegrityError) return true;
  if (error instanceof RemoteGoneError) return true;
  if (!(error instanceof MdStoreApiError)) return false;
  return ![401, 403, 429].includes(error.status) && error.status < 500;
}
