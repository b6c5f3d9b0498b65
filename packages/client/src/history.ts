import { ifMatch, ifNoneMatch, ifUnmodifiedSince, type WritePreconditions } from './conditions.js';
import { FileDownload } from './download.js';
import { type DownloadOptions, downloadHeaders, type MdStoreFile } from './files.js';
import type { components } from './generated/openapi.js';
import type { PageOptions } from './projects.js';
import type { RequestOptions, TypedApi } from './transport.js';

/** A moved file; with `rewriteLinks`, `rewritten` lists the files whose links were rewritten. */
export type MovedFile = components['schemas']['MovedFile'];

export type Revision = components['schemas']['Revision'];
export type RevisionList = components['schemas']['RevisionList'];

const writeHeaders = (options: WritePreconditions) => ({
  'If-Match': ifMatch(options),
  'If-None-Match': ifNoneMatch(options),
  'If-Unmodified-Since': ifUnmodifiedSince(options),
});

/**
 * The history of files (extensions §5): kept revisions, one revision's content, diffs, restore, move
 * and copy. Every write takes the preconditions (`ifMatch`, …) a project with `require_if_match` needs.
 */
export class HistoryApi {
  constructor(private readonly api: TypedApi) {}

  /** One page of the kept revisions, newest first. */
  async listRevisions(
    projectId: string,
    filename: string,
    options?: RequestOptions & { limit?: number; cursor?: string | null },
  ): Promise<RevisionList> {
    const path = { project_id: projectId, filename };
    const query = { limit: options?.limit, cursor: options?.cursor ?? undefined };
    const route = '/api/projects/{project_id}/files/{filename}/revisions';
    return (await this.api.json('get', route, { path, query }, options)).data;
  }

  /** Every kept revision, newest first, page by page. */
  async *iterateRevisions(
    projectId: string,
    filename: string,
    options: PageOptions = {},
  ): AsyncGenerator<Revision, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.listRevisions(projectId, filename, {
        ...options,
        limit: options.pageSize,
        ...(cursor && { cursor }),
      });
      yield* page.revisions;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /** The content of a kept revision (a pruned one is a 404), as a download of that revision. */
  async downloadRevision(
    projectId: string,
    filename: string,
    revision: number,
    options: DownloadOptions = {},
  ): Promise<FileDownload> {
    const headers = downloadHeaders(options);
    const path = { project_id: projectId, filename, revision };
    const route = '/api/projects/{project_id}/files/{filename}/revisions/{revision}';
    const response = await this.api.request('get', route, { path, headers, expect: [304] }, options);
    return new FileDownload(filename, response);
  }

  /** The unified diff from revision `from` to `to` (the current one when omitted). */
  async diff(
    projectId: string,
    filename: string,
    from: number,
    options: RequestOptions & { to?: number } = {},
  ): Promise<string> {
    const path = { project_id: projectId, filename };
    const query = { from, to: options.to };
    const route = '/api/projects/{project_id}/files/{filename}/diff';
    return (await this.api.request('get', route, { path, query }, options)).text();
  }

  /** Makes a kept revision's content and metadata current again, as a new revision. */
  async restore(
    projectId: string,
    filename: string,
    revision: number,
    options: RequestOptions & WritePreconditions = {},
  ): Promise<MdStoreFile> {
    const call = {
      path: { project_id: projectId, filename },
      headers: writeHeaders(options),
      json: { revision },
    };
    const route = '/api/projects/{project_id}/files/{filename}/restore';
    return (await this.api.json('post', route, call, options)).data;
  }

  /**
   * Renames a file; content, metadata and history go with it (409 if `to` exists). `rewriteLinks`
   * (extensions §9) rewrites every link to it in the same change (the answer's `rewritten`); with
   * `dryRun` nothing changes and the answer shows what would be rewritten.
   */
  async move(
    projectId: string,
    filename: string,
    to: string,
    options: RequestOptions & WritePreconditions & { rewriteLinks?: boolean; dryRun?: boolean } = {},
  ): Promise<MovedFile> {
    const json = {
      to,
      ...(options.rewriteLinks !== undefined && { rewrite_links: options.rewriteLinks }),
      ...(options.dryRun !== undefined && { dry_run: options.dryRun }),
    };
    const call = { path: { project_id: projectId, filename }, headers: writeHeaders(options), json };
    const route = '/api/projects/{project_id}/files/{filename}/move';
    return (await this.api.json('post', route, call, options)).data;
  }

  /** Copies a file as a new file, here or into `projectId` of `options` (another project of the account). */
  async copy(
    projectId: string,
    filename: string,
    to: string,
    options: RequestOptions & WritePreconditions & { toProjectId?: string } = {},
  ): Promise<MdStoreFile> {
    const json = { to, ...(options.toProjectId !== undefined && { project_id: options.toProjectId }) };
    const call = { path: { project_id: projectId, filename }, headers: writeHeaders(options), json };
    const route = '/api/projects/{project_id}/files/{filename}/copy';
    return (await this.api.json('post', route, call, options)).data;
  }
}
