import {
  ifMatch,
  ifNoneMatch,
  ifRange,
  ifUnmodifiedSince,
  type ReadPreconditions,
  readConditionHeaders,
  type WritePreconditions,
} from './conditions.js';
import { bufferOf, type ContentInput, isStreamInput, toWireBody } from './content.js';
import { digestField, isSha256Hex, sha256Hex } from './digest.js';
import { FileDownload, type FileHead, readFileHead } from './download.js';
import { MdStoreApiError } from './errors.js';
import type { components } from './generated/openapi.js';
import { uploadBody } from './multipart.js';
import type { PageOptions } from './projects.js';
import type { RequestOptions, TypedApi } from './transport.js';

/** The File object (named so as not to shadow the platform's `File`). */
export type MdStoreFile = components['schemas']['File'];
/** The answer of a metadata or content update. */
export type FileUpdate = components['schemas']['FileUpdate'];
/** A content update's answer: `merged: true` only when a `mergeBase` write merged three ways. */
export type FileContentUpdate = components['schemas']['FileContentUpdate'];
export type FileList = components['schemas']['FileList'];
export type Metadata = NonNullable<MdStoreFile['metadata']>;
/** The body of an edit (`PATCH`): `{ edits: [...], dry_run? }`. */
export type FileEdit = components['schemas']['FileEdit'];
export type FileEdited = components['schemas']['FileEdited'];
export type Outline = components['schemas']['Outline'];

export interface UploadOptions extends RequestOptions {
  readonly metadata?: Metadata | null;
  /**
   * The content's SHA-256 (lower-case hex) for the server to check, or `true` to compute it here
   * (not for streams). A mismatch is a 400 and nothing is stored.
   */
  readonly sha256?: string | true;
}

/** Options of `put`: create or replace. */
export interface PutOptions extends RequestOptions {
  /** Set on a new file; on an existing one it replaces the metadata (`null` clears it). Kept when omitted. */
  readonly metadata?: Metadata | null;
  /** Replace only: the file must exist and still have this ETag (412 otherwise, 404 when it is gone). */
  readonly ifMatch?: string;
  /** As for uploads: sent as `Content-Digest`. */
  readonly sha256?: string | true;
}

export interface UpdateContentOptions extends RequestOptions, WritePreconditions, MergeBaseOption {
  /** As for uploads: sent as `Content-Digest`. */
  readonly sha256?: string | true;
}

/**
 * Extensions §13: instead of `ifMatch`, the ETag of the revision the change was made from; the change
 * is merged into the current content. Overlapping changes are a 409 `MdStoreApiError` whose body has
 * `conflicts: [{filename, hunks}]`.
 */
export interface MergeBaseOption {
  readonly mergeBase?: string;
}

const mergeBaseQuery = (options: MergeBaseOption) =>
  options.mergeBase === undefined ? undefined : { merge_base: options.mergeBase };

/** One byte range: `{ start, end? }` (end inclusive), or the last `suffix` bytes. */
export type ByteRange = { readonly start: number; readonly end?: number } | { readonly suffix: number };

export interface DownloadOptions extends RequestOptions, ReadPreconditions {
  readonly range?: ByteRange;
  /**
   * Lines `a-b` (1-based, inclusive; `b` clipped to the last line): that part of the text, with the
   * file's ETag and `X-Line-Range` (`range` is then ignored, and no digest is checked).
   */
  readonly lines?: string;
  /**
   * `html`: the file rendered as a sanitised HTML fragment (extensions §11; `text/html`, the file's
   * ETag), `range` and `lines` then ignored. `html()` is the same as text only.
   */
  readonly format?: 'html';
  /** Only send the range if the file still has this ETag (or was not modified since this date). */
  readonly ifRange?: string | Date;
}

export function rangeHeader(range: ByteRange | undefined): string | undefined {
  if (range === undefined) return undefined;
  if ('suffix' in range) return `bytes=-${range.suffix}`;
  return `bytes=${range.start}-${range.end ?? ''}`;
}

/** The headers of a download (of a file or of a revision): its preconditions and range. */
export const downloadHeaders = (options: DownloadOptions) => ({
  ...readConditionHeaders(options),
  Range: rangeHeader(options.range),
  'If-Range': ifRange(options.ifRange),
});

async function declaredSha256(content: ContentInput, sha256: string | true | undefined) {
  if (sha256 === undefined) return undefined;
  if (sha256 !== true) {
    if (!isSha256Hex(sha256)) throw new TypeError('sha256 must be 64 lower-case hex digits');
    return sha256;
  }
  if (isStreamInput(content)) throw new TypeError('sha256: true needs content that is not a stream');
  return sha256Hex(await bufferOf(content));
}

/** The ordering and narrowing parameters of List Files (extensions §3). */
export interface FileListQuery {
  readonly sort?: 'filename' | 'created_date' | 'updated_date' | 'size_bytes';
  readonly order?: 'asc' | 'desc';
  /** Only files whose filename starts with it. */
  readonly prefix?: string;
  /** `/`: files below the next `/` after `prefix` come back as `folders`. */
  readonly delimiter?: '/';
}

const isStatus = (error: unknown, status: number) =>
  error instanceof MdStoreApiError && error.status === status;

/** Files of one project. A filename is sent as one path segment (`/` → `%2F`). */
export class FilesApi {
  constructor(private readonly api: TypedApi) {}

  /**
   * The files of the project, ordered by filename; with `limit` or `cursor` one page of them (and
   * `next_cursor`), ordered and narrowed by the `FileListQuery` parameters.
   */
  async list(
    projectId: string,
    options?: RequestOptions & FileListQuery & { limit?: number; cursor?: string | null },
  ): Promise<FileList> {
    const query = {
      limit: options?.limit,
      cursor: options?.cursor ?? undefined,
      sort: options?.sort,
      order: options?.order,
      prefix: options?.prefix,
      delimiter: options?.delimiter,
    };
    const path = { project_id: projectId };
    return (await this.api.json('get', '/api/projects/{project_id}/files', { path, query }, options)).data;
  }

  /**
   * Every file (of `prefix`, in `sort`/`order`), page by page where the server pages (a server without
   * paging answers in one go). With `delimiter`, folders are skipped: use `list` to see them.
   */
  async *iterate(
    projectId: string,
    options: PageOptions & FileListQuery = {},
  ): AsyncGenerator<MdStoreFile, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.list(projectId, {
        ...options,
        limit: options.pageSize,
        ...(cursor && { cursor }),
      });
      yield* page.files;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /** Creates a file (409 if the name is taken). */
  async upload(
    projectId: string,
    filename: string,
    content: ContentInput,
    options: UploadOptions = {},
  ): Promise<MdStoreFile> {
    const sha256 = await declaredSha256(content, options.sha256);
    const form = uploadBody({
      filename,
      content,
      ...(options.metadata !== undefined && { metadata: options.metadata }),
      ...(sha256 !== undefined && { sha256 }),
    });
    const response = await this.api.request(
      'post',
      '/api/projects/{project_id}/files',
      { path: { project_id: projectId }, body: form.body, contentType: form.contentType },
      options,
    );
    return (await response.json()) as MdStoreFile;
  }

  /**
   * Creates the file or, when the name is taken, replaces its content (then its metadata, when
   * `metadata` is given, under the ETag the content write returned). With `ifMatch` it only replaces.
   * Running it again with the same arguments succeeds again (a new revision each time), so scripts
   * that use it can be re-run. A stream is not replayable: for one, a `HEAD` decides first.
   */
  async put(
    projectId: string,
    filename: string,
    content: ContentInput,
    options: PutOptions = {},
  ): Promise<FileUpdate> {
    const { ifMatch: etag, metadata, ...rest } = options;
    if (etag === undefined) {
      const created = await this.createUnlessTaken(projectId, filename, content, options);
      if (created) return created;
    }
    const replaced = await this.updateContent(projectId, filename, content, { ...rest, ifMatch: etag });
    if (metadata === undefined) return replaced;
    return this.updateMetadata(projectId, filename, metadata, { ...rest, ifMatch: replaced.etag });
  }

  /** `upload`, or undefined when the name is taken (decided by a `HEAD` first for a stream). */
  private async createUnlessTaken(
    projectId: string,
    filename: string,
    content: ContentInput,
    options: UploadOptions,
  ): Promise<MdStoreFile | undefined> {
    if (isStreamInput(content)) {
      const exists = await this.head(projectId, filename, options).then(
        () => true,
        (error: unknown) => (isStatus(error, 404) ? false : Promise.reject(error)),
      );
      return exists ? undefined : this.upload(projectId, filename, content, options);
    }
    try {
      return await this.upload(projectId, filename, content, options);
    } catch (error) {
      if (isStatus(error, 409)) return undefined;
      throw error;
    }
  }

  /**
   * Downloads a file. With `range`, a `206` carries that part (`download.range`); with `ifNoneMatch` or
   * `ifModifiedSince`, a copy that is still current gives `download.notModified` and no content.
   * `lines` reads part of the text, `format: 'html'` its rendering (with the file's ETag).
   */
  async download(projectId: string, filename: string, options: DownloadOptions = {}): Promise<FileDownload> {
    const headers = downloadHeaders(options);
    const path = { project_id: projectId, filename };
    const query = { lines: options.lines, format: options.format };
    const response = await this.api.request(
      'get',
      '/api/projects/{project_id}/files/{filename}',
      { path, query, headers, expect: [304] },
      options,
    );
    return new FileDownload(filename, response);
  }

  /** The whole content as text (checked against the server's digest). */
  async readText(projectId: string, filename: string, options?: RequestOptions): Promise<string> {
    return (await this.download(projectId, filename, options)).text();
  }

  /** The download's headers without the content. */
  async head(
    projectId: string,
    filename: string,
    options: RequestOptions & ReadPreconditions = {},
  ): Promise<FileHead> {
    const headers = readConditionHeaders(options);
    const path = { project_id: projectId, filename };
    const response = await this.api.request(
      'head',
      '/api/projects/{project_id}/files/{filename}',
      { path, headers, expect: [304] },
      options,
    );
    return readFileHead(filename, response.headers);
  }

  /** Replaces the whole metadata object (`null` clears it). */
  async updateMetadata(
    projectId: string,
    filename: string,
    metadata: Metadata | null,
    options: RequestOptions & WritePreconditions = {},
  ): Promise<FileUpdate> {
    const headers = {
      'If-Match': ifMatch(options),
      'If-None-Match': ifNoneMatch(options),
      'If-Unmodified-Since': ifUnmodifiedSince(options),
    };
    const path = { project_id: projectId, filename };
    const call = { path, headers, json: { metadata } };
    return (await this.api.json('put', '/api/projects/{project_id}/files/{filename}', call, options)).data;
  }

  /** Replaces the content; the metadata is kept. */
  async updateContent(
    projectId: string,
    filename: string,
    content: ContentInput,
    options: UpdateContentOptions = {},
  ): Promise<FileContentUpdate> {
    const sha256 = await declaredSha256(content, options.sha256);
    const headers = {
      'If-Match': ifMatch(options),
      'If-None-Match': ifNoneMatch(options),
      'If-Unmodified-Since': ifUnmodifiedSince(options),
      'Content-Digest': sha256 === undefined ? undefined : digestField(sha256),
    };
    const path = { project_id: projectId, filename };
    const query = mergeBaseQuery(options);
    const response = await this.api.request(
      'put',
      '/api/projects/{project_id}/files/{filename}/content',
      {
        path,
        headers,
        ...(query && { query }),
        body: toWireBody(content),
        contentType: 'text/markdown; charset=utf-8',
      },
      options,
    );
    return (await response.json()) as FileContentUpdate;
  }

  /**
   * Deletes the file. `ifUnreferenced: true` (extensions §9) refuses when other files link to it: a
   * 409 `MdStoreApiError` whose body has `referenced_by`.
   */
  async delete(
    projectId: string,
    filename: string,
    options: RequestOptions & WritePreconditions & { ifUnreferenced?: boolean } = {},
  ): Promise<void> {
    const headers = {
      'If-Match': ifMatch(options),
      'If-None-Match': ifNoneMatch(options),
      'If-Unmodified-Since': ifUnmodifiedSince(options),
    };
    const path = { project_id: projectId, filename };
    const query =
      options.ifUnreferenced === undefined ? undefined : { if_unreferenced: options.ifUnreferenced };
    await this.api.request(
      'delete',
      '/api/projects/{project_id}/files/{filename}',
      { path, headers, ...(query && { query }) },
      options,
    );
  }

  /** Applies edits in order, all or none (extensions §4); `dry_run: true` shows the diff only. */
  async edit(
    projectId: string,
    filename: string,
    edit: FileEdit,
    options: RequestOptions & WritePreconditions & MergeBaseOption = {},
  ): Promise<FileEdited> {
    const headers = {
      'If-Match': ifMatch(options),
      'If-None-Match': ifNoneMatch(options),
      'If-Unmodified-Since': ifUnmodifiedSince(options),
    };
    const path = { project_id: projectId, filename };
    const query = mergeBaseQuery(options);
    const call = { path, headers, ...(query && { query }), json: edit };
    return (await this.api.json('patch', '/api/projects/{project_id}/files/{filename}', call, options)).data;
  }

  /** The headings (with their section paths) and links of a file. */
  /**
   * The file rendered as a sanitised HTML fragment (extensions §11): headings with GitHub-style ids,
   * links to other files of the project made console links; `.mdx` as escaped source.
   */
  async html(projectId: string, filename: string, options?: RequestOptions): Promise<string> {
    const path = { project_id: projectId, filename };
    const query = { format: 'html' as const };
    return (
      await this.api.request('get', '/api/projects/{project_id}/files/{filename}', { path, query }, options)
    ).text();
  }

  /**
   * Text that is not stored rendered as `html` renders a file of that name (extensions §11): the same
   * sanitised HTML, links and embeds resolved against the project. `filename` defaults to `untitled.md`.
   */
  async render(
    projectId: string,
    content: string,
    options: RequestOptions & { filename?: string } = {},
  ): Promise<string> {
    const json = { content, ...(options.filename !== undefined && { filename: options.filename }) };
    const call = { path: { project_id: projectId }, json };
    return (await this.api.json('post', '/api/projects/{project_id}/render', call, options)).data.html;
  }

  async outline(projectId: string, filename: string, options?: RequestOptions): Promise<Outline> {
    const path = { project_id: projectId, filename };
    const url = '/api/projects/{project_id}/files/{filename}/outline' as const;
    return (await this.api.json('get', url, { path }, options)).data;
  }
}
