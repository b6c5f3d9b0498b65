import { ifMatch, ifNoneMatch, ifUnmodifiedSince, type WritePreconditions } from './conditions.js';
import type { components } from './generated/openapi.js';
import type { RequestOptions, TypedApi } from './transport.js';

export type Project = components['schemas']['Project'];
export type ProjectSettings = components['schemas']['ProjectSettings'];
export type ProjectList = components['schemas']['ProjectList'];
export type ProjectCreate = components['schemas']['ProjectCreate'];
export type ProjectUpdate = components['schemas']['ProjectUpdate'];
export type ProjectDeleted = components['schemas']['ProjectDeleted'];

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

  /** Deletes the project and every file in it (not the default project: 403). */
  async delete(
    projectId: string,
    options: RequestOptions & WritePreconditions = {},
  ): Promise<ProjectDeleted> {
    const headers = { 'If-Match': ifMatch(options), 'If-Unmodified-Since': ifUnmodifiedSince(options) };
    const path = { project_id: projectId };
    return (await this.api.json('delete', '/api/projects/{project_id}', { path, headers }, options)).data;
  }
}
