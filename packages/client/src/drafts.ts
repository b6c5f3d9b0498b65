import type { components } from './generated/openapi.js';
import type { RequestOptions, TypedApi } from './transport.js';

export type DraftCreate = components['schemas']['DraftCreate'];
export type Draft = components['schemas']['Draft'];
export type DraftList = components['schemas']['DraftList'];
export type DraftDiff = components['schemas']['DraftDiff'];
export type DraftPublished = components['schemas']['DraftPublished'];
export type DraftReviewCreate = components['schemas']['DraftReviewCreate'];
/** An operation a draft takes: a changeset's file operations (`put`, `edit`, `delete`, `move`). */
export type DraftOperation = components['schemas']['DraftOperations']['operations'][number];
/** A refused publish (or write with `mergeBase`): the overlapping hunks of each file. */
export type DraftConflicts = components['schemas']['MergeConflicts'];

const DRAFTS = '/api/projects/{project_id}/drafts';
const ONE = '/api/projects/{project_id}/drafts/{draft_id}';

/**
 * Drafts (extensions §13): proposed changes kept apart until published. A `propose` key opens drafts,
 * adds operations and closes its own; reviews and publishing need `write`. A refused publish is an
 * `MdStoreApiError` with status 409 whose body holds `conflicts`.
 */
export class DraftsApi {
  constructor(private readonly api: TypedApi) {}

  async create(projectId: string, body: DraftCreate, options?: RequestOptions): Promise<Draft> {
    return (await this.api.json('post', DRAFTS, { path: { project_id: projectId }, json: body }, options))
      .data;
  }

  async addOperations(
    projectId: string,
    draftId: string,
    operations: readonly DraftOperation[],
    options?: RequestOptions,
  ): Promise<Draft> {
    const path = { project_id: projectId, draft_id: draftId };
    const json = { operations: [...operations] };
    return (await this.api.json('post', `${ONE}/operations`, { path, json }, options)).data;
  }

  /** One page of the project's drafts, newest first. */
  async list(
    projectId: string,
    query: { state?: 'open' | 'published' | 'closed'; limit?: number; cursor?: string } = {},
    options?: RequestOptions,
  ): Promise<DraftList> {
    return (await this.api.json('get', DRAFTS, { path: { project_id: projectId }, query }, options)).data;
  }

  async get(projectId: string, draftId: string, options?: RequestOptions): Promise<Draft> {
    return (await this.api.json('get', ONE, { path: { project_id: projectId, draft_id: draftId } }, options))
      .data;
  }

  /** The text the draft proposes for a file it puts or edits. */
  async readFile(
    projectId: string,
    draftId: string,
    filename: string,
    options?: RequestOptions,
  ): Promise<string> {
    const path = { project_id: projectId, draft_id: draftId, filename };
    return (await this.api.request('get', `${ONE}/files/{filename}`, { path }, options)).text();
  }

  /** One page of the draft's files with their diffs from their bases and `stale`. */
  async diff(
    projectId: string,
    draftId: string,
    query: { limit?: number; cursor?: string } = {},
    options?: RequestOptions,
  ): Promise<DraftDiff> {
    const path = { project_id: projectId, draft_id: draftId };
    return (await this.api.json('get', `${ONE}/diff`, { path, query }, options)).data;
  }

  async review(
    projectId: string,
    draftId: string,
    body: DraftReviewCreate,
    options?: RequestOptions,
  ): Promise<Draft> {
    const path = { project_id: projectId, draft_id: draftId };
    return (await this.api.json('post', `${ONE}/reviews`, { path, json: body }, options)).data;
  }

  async close(projectId: string, draftId: string, options?: RequestOptions): Promise<Draft> {
    const path = { project_id: projectId, draft_id: draftId };
    return (await this.api.json('post', `${ONE}/close`, { path }, options)).data;
  }

  /** Applies the draft as one changeset; 409 with `conflicts` when changes overlap (nothing changes). */
  async publish(projectId: string, draftId: string, options?: RequestOptions): Promise<DraftPublished> {
    const path = { project_id: projectId, draft_id: draftId };
    return (await this.api.json('post', `${ONE}/publish`, { path }, options)).data;
  }
}
