import { ifMatch, ifNoneMatch, ifUnmodifiedSince, type WritePreconditions } from './conditions.js';
import { type ContentInput, toWireBody } from './content.js';
import type { components } from './generated/openapi.js';
import type { RequestOptions, TypedApi } from './transport.js';

export type Project = components['schemas']['Project'];
export type ProjectSettings = components['schemas']['ProjectSettings'];
export type ProjectList = components['schemas']['ProjectList'];
export type ProjectCreate = components['schemas']['ProjectCreate'];
export type ProjectUpdate = components['schemas']['ProjectUpdate'];
export type ProjectDeleted = components['schemas']['ProjectDeleted'];
export type ProjectRestoreResult = components['schemas']['ProjectRestoreResult'];

export interface PageOptions extends RequestOptions {
  /** Items per request on servers that page lists (extensions §3). */
  readonly pageSize?: number;
}

/** Projects of the key's account. */
export class ProjectsApi {
  constructor(private readonly api: TypedApi) {}

  /** Every project, deleted ones included (`is_active: false`). */
  async list(options?: RequestOptions & { limit?: number; cursor?: string | null }): Promise<ProjectList> {
    const query = { limit: options?.limit, cursor: options?.cursor ?? undefined };
    return (await this.api.json('get', '/api/projects', { query }, options)).data;
  }

  /** Every project, page by page where the server pages (a server without paging answers in one go). */
  async *iterate(options: PageOptions = {}): AsyncGenerator<Project, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.list({ ...options, limit: options.pageSize, ...(cursor && { cursor }) });
      yield* page.projects;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  async create(input: ProjectCreate, options?: RequestOptions): Promise<Project> {
    return (await this.api.json('post', '/api/projects', { json: input }, options)).data;
  }

  /** The project; `ifMatch` makes it fail (412) unless the project still has that ETag. */
  async get(
    projectId: string,
    options: RequestOptions & Pick<WritePreconditions, 'ifMatch'> = {},
  ): Promise<Project> {
    const headers = { 'If-Match': ifMatch(options) };
    const path = { project_id: projectId };
    return (await this.api.json('get', '/api/projects/{project_id}', { path, headers }, options)).data;
  }

  /** The project if its ETag is no longer `etag`, else null (the copy the caller has is current). */
  async getIfChanged(projectId: string, etag: string, options?: RequestOptions): Promise<Project | null> {
    const headers = { 'If-None-Match': etag };
    const path = { project_id: projectId };
    const response = await this.api.request(
      'get',
      '/api/projects/{project_id}',
      { path, headers, expect: [304] },
      options,
    );
    return response.status === 304 ? null : ((await response.json()) as Project);
  }

  /** The account's default project (every account has one). */
  async getDefault(options?: RequestOptions): Promise<Project> {
    const found = (await this.list(options)).projects.find((project) => project.is_default);
    if (!found) throw new Error('the account has no default project');
    return found;
  }

  /** Changes only the fields given; `ifMatch` makes it fail (412) if the project changed meanwhile. */
  async update(
    projectId: string,
    changes: ProjectUpdate,
    options: RequestOptions & WritePreconditions = {},
  ): Promise<Project> {
    const headers = {
      'If-Match': ifMatch(options),
      'If-None-Match': ifNoneMatch(options),
      'If-Unmodified-Since': ifUnmodifiedSince(options),
    };
    const path = { project_id: projectId };
    return (
      await this.api.json('put', '/api/projects/{project_id}', { path, headers, json: changes }, options)
    ).data;
  }

  /**
   * Brings the project's files back to what they were at `asOf` (extensions §16), as one changeset;
   * `dryRun` answers what would be created, changed and deleted without writing. Needs an `admin` key.
   */
  async restore(
    projectId: string,
    asOf: Date | string,
    options: RequestOptions & { dryRun?: boolean } = {},
  ): Promise<ProjectRestoreResult> {
    const json = {
      as_of: typeof asOf === 'string' ? asOf : asOf.toISOString(),
      dry_run: options.dryRun ?? false,
    };
    const path = { project_id: projectId };
    return (await this.api.json('post', '/api/projects/{project_id}/restore', { path, json }, options)).data;
  }

  /** Deletes the project and every file in it (not the default project: 403). */
  async delete(
    projectId: string,
    options: RequestOptions & WritePreconditions = {},
  ): Promise<ProjectDeleted> {
    const headers = { 'If-Match': ifMatch(options), 'If-Unmodified-Since': ifUnmodifiedSince(options) };
    const path = { project_id: projectId };
    return (await this.api.json('delete', '/api/projects/{project_id}', { path, headers }, options)).data;
  }

  /**
   * Exports the project (extensions §10) as one archive, streamed: every file (of `prefix`) at its
   * filename and `mdstore.json`. The answer is not read here: take `archive.body` (a stream) or
   * `archive.arrayBuffer()`.
   */
  async export(
    projectId: string,
    options: RequestOptions & { format?: ExportFormat; prefix?: string } = {},
  ): Promise<ProjectArchive> {
    const query = { format: options.format, prefix: options.prefix };
    const path = { project_id: projectId };
    const response = await this.api.request(
      'get',
      '/api/projects/{project_id}/export',
      { path, query },
      options,
    );
    return new ProjectArchive(response);
  }

  /**
   * Imports an archive (extensions §10) as one changeset: every `.md`/`.mdx` entry becomes a file (with
   * the metadata of its `mdstore.json`), equal files are `unchanged`, the rest is skipped with reasons.
   * `archive` may be a stream (sent as it is read; a stream is never retried).
   */
  async import(projectId: string, archive: ContentInput, options: ImportOptions = {}): Promise<ImportResult> {
    const query = {
      mode: options.mode,
      dry_run:
        options.dryRun === undefined ? undefined : options.dryRun ? ('true' as const) : ('false' as const),
      importer: options.importer,
    };
    const path = { project_id: projectId };
    const contentType = options.format === 'tar.gz' ? 'application/gzip' : 'application/zip';
    const response = await this.api.request(
      'post',
      '/api/projects/{project_id}/import',
      { path, query, body: toWireBody(archive), contentType },
      options,
    );
    return (await response.json()) as ImportResult;
  }
}

export type ExportFormat = 'zip' | 'tar.gz';

export type ImportResult = components['schemas']['ImportResult'];
export type ImportMode = 'merge' | 'replace';
export type Importer = 'plain' | 'obsidian' | 'notion' | 'gitbook';

export interface ImportOptions extends RequestOptions {
  /** The archive's format (default `zip`); a tar.gz is sent as `application/gzip`. */
  readonly format?: ExportFormat;
  /** `merge` (default) keeps files the archive lacks; `replace` (admin key) deletes them. */
  readonly mode?: ImportMode;
  readonly dryRun?: boolean;
  readonly importer?: Importer;
}

/** An export's answer: the archive's media type, the name the server suggests, and its bytes. */
export class ProjectArchive {
  /** `application/zip` or `application/gzip`. */
  readonly contentType: string;
  /** From `Content-Disposition` (`<project name>.zip`), or undefined. */
  readonly filename: string | undefined;
  readonly requestId: string | undefined;

  constructor(readonly response: Response) {
    this.contentType = (response.headers.get('content-type') ?? '').split(';', 1)[0]!.trim();
    this.filename = dispositionFilename(response.headers.get('content-disposition'));
    this.requestId = response.headers.get('x-request-id') ?? undefined;
  }

  /** The archive as it streams in (read it once). */
  get body(): ReadableStream<Uint8Array> {
    if (!this.response.body) throw new Error('the export answer has no body');
    return this.response.body;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.response.arrayBuffer();
  }
}

/** The `filename*` (RFC 8187, UTF-8) of a `Content-Disposition`, else its `filename`. */
export function dispositionFilename(value: string | null): string | undefined {
  if (value === null) return undefined;
  const extended = /filename\*=UTF-8''([^;\s]+)/i.exec(value);
  if (extended) {
    try {
      return decodeURIComponent(extended[1]!);
    } catch {
      // Not valid percent-encoded UTF-8: fall back to the plain parameter.
    }
  }
  const plain = /filename="([^"]*)"/i.exec(value);
  return plain ? plain[1] : undefined;
}
