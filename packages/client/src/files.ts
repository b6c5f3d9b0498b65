import {
  ifMatch,
  ifModifiedSince,
  ifNoneMatch,
  ifRange,
  ifUnmodifiedSince,
  type ReadPreconditions,
  type WritePreconditions,
} from './conditions.js';
import { bufferOf, type ContentInput, isStreamInput, toWireBody } from './content.js';
import { digestField, isSha256Hex, sha256Hex } from './digest.js';
import { FileDownload, type FileHead, readFileHead } from './download.js';
import type { components } from './generated/openapi.js';
import { uploadBody } from './multipart.js';
import type { PageOptions } from './projects.js';
import type { RequestOptions, TypedApi } from './transport.js';

/** The File object (named so as not to shadow the platform's `File`). */
export type MdStoreFile = components['schemas']['File'];
/** The answer of a metadata or content update. */
export type FileUpdate = components['schemas']['FileUpdate'];
export type FileList = components['schemas']['FileList'];
export type Metadata = NonNullable<MdStoreFile['metadata']>;

export interface UploadOptions extends RequestOptions {
  readonly metadata?: Metadata | null;
  /**
   * The content's SHA-256 (lower-case hex) for the server to check, or `true` to compute it here
   * (not for streams). A mismatch is a 400 and nothing is stored.
   */
  readonly sha256?: string | true;
}

export interface UpdateContentOptions extends RequestOptions, WritePreconditions {
  /** As for uploads: sent as `Content-Digest`. */
  readonly sha256?: string | true;
}

/** One byte range: `{ start, end? }` (end inclusive), or the last `suffix` bytes. */
export type ByteRange = { readonly start: number; readonly end?: number } | { readonly suffix: number };

export interface DownloadOptions extends RequestOptions, ReadPreconditions {
  readonly range?: ByteRange;
  /** Only send the range if the file still has this ETag (or was not modified since this date). */
  readonly ifRange?: string | Date;
}

function rangeHeader(range: ByteRange | undefined): string | undefined {
  if (range === undefined) return undefined;
  if ('suffix' in range) return `bytes=-${range.suffix}`;
  return `bytes=${range.start}-${range.end ?? ''}`;
}

async function declaredSha256(content: ContentInput, sha256: string | true | undefined) {
  if (sha256 === undefined) return undefined;
  if (sha256 !== true) {
    if (!isSha256Hex(sha256)) throw new TypeError('sha256 must be 64 lower-case hex digits');
    return sha256;
  }
  if (isStreamInput(content)) throw new TypeError('sha256: true needs content that is not a stream');
  return sha256Hex(await bufferOf(content));
}

/** Files of one project. A filename is sent as one path segment (`/` → `%2F`). */
export class FilesApi {
  constructor(private readonly api: TypedApi) {}

  /** Every file of the project, ordered by filename. */
  async list(
    projectId: string,
    options?: RequestOptions & { limit?: number; cursor?: string },
  ): Promise<FileList> {
    const query = { limit: options?.limit, cursor: options?.cursor };
    const path = { project_id: projectId };
    return (await this.api.json('get', '/api/projects/{project_id}/files', { path, query }, options)).data;
  }

  /** Every file, page by page where the server pages (a server without paging answers in one go). */
  async *iterate(projectId: string, options: PageOptions = {}): AsyncGenerator<MdStoreFile, void, undefined> {
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
   * Downloads a file. With `range`, a `206` carries that part (`download.range`); with `ifNoneMatch` or
   * `ifModifiedSince`, a copy that is still current gives `download.notModified` and no content.
   */
  async download(projectId: string, filename: string, options: DownloadOptions = {}): Promise<FileDownload> {
    const headers = {
      'If-Match': ifMatch(options),
      'If-None-Match': ifNoneMatch(options),
      'If-Modified-Since': ifModifiedSince(options),
      'If-Unmodified-Since': ifUnmodifiedSince(options),
      Range: rangeHeader(options.range),
      'If-Range': ifRange(options.ifRange),
    };
    const path = { project_id: projectId, filename };
    const response = await this.api.request(
      'get',
      '/api/projects/{project_id}/files/{filename}',
      { path, headers, expect: [304] },
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
    const headers = {
      'If-Match': ifMatch(options),
      'If-None-Match': ifNoneMatch(options),
      'If-Modified-Since': ifModifiedSince(options),
      'If-Unmodified-Since': ifUnmodifiedSince(options),
    };
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
  ): Promise<FileUpdate> {
    const sha256 = await declaredSha256(content, options.sha256);
    const headers = {
      'If-Match': ifMatch(options),
      'If-None-Match': ifNoneMatch(options),
      'If-Unmodified-Since': ifUnmodifiedSince(options),
      'Content-Digest': sha256 === undefined ? undefined : digestField(sha256),
    };
    const path = { project_id: projectId, filename };
    const response = await this.api.request(
      'put',
      '/api/projects/{project_id}/files/{filename}/content',
      { path, headers, body: toWireBody(content), contentType: 'text/markdown; charset=utf-8' },
      options,
    );
    return (await response.json()) as FileUpdate;
  }

  async delete(
    projectId: string,
    filename: string,
    options: RequestOptions & WritePreconditions = {},
  ): Promise<void> {
    const headers = {
      'If-Match': ifMatch(options),
      'If-None-Match': ifNoneMatch(options),
      'If-Unmodified-Since': ifUnmodifiedSince(options),
    };
    const path = { project_id: projectId, filename };
    await this.api.request(
      'delete',
      '/api/projects/{project_id}/files/{filename}',
      { path, headers },
      options,
    );
  }
}
