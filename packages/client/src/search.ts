import type { components } from './generated/openapi.js';
import type { RequestOptions, TypedApi } from './transport.js';

/** A search of one project. */
export type SearchRequest = components['schemas']['SearchRequest'];
/** A search over the account's projects (`project_ids` narrows it). */
export type SearchAllRequest = components['schemas']['SearchAllRequest'];
export type SearchAnswer = components['schemas']['SearchAnswer'];
export type SearchResult = components['schemas']['SearchResult'];
export type SearchFilter = NonNullable<SearchRequest['filter']>;
/** Where search by meaning stands for a project (extensions §15). */
export type SearchStatus = components['schemas']['SearchStatus'];

/**
 * Search (extensions §3): `search(projectId, request)` in one project, `search(null, request)` over
 * the account's projects (or `request.project_ids`). One page per call; `iterate` walks every page.
 */
export class SearchApi {
  constructor(private readonly api: TypedApi) {}

  async search(projectId: string, request?: SearchRequest, options?: RequestOptions): Promise<SearchAnswer>;
  async search(projectId: null, request?: SearchAllRequest, options?: RequestOptions): Promise<SearchAnswer>;
  async search(
    projectId: string | null,
    request: SearchAllRequest = {},
    options?: RequestOptions,
  ): Promise<SearchAnswer> {
    if (projectId === null)
      return (await this.api.json('post', '/api/search', { json: request }, options)).data;
    const path = { project_id: projectId };
    return (
      await this.api.json('post', '/api/projects/{project_id}/search', { path, json: request }, options)
    ).data;
  }

  /** Extensions §15: files embedded, changes pending and the lag of search by meaning in a project. */
  async status(projectId: string, options?: RequestOptions): Promise<SearchStatus> {
    const path = { project_id: projectId };
    return (await this.api.json('get', '/api/projects/{project_id}/search/status', { path }, options)).data;
  }

  /** Every result, page by page, following `next_cursor`. */
  async *iterate(
    projectId: string | null,
    request: Omit<SearchAllRequest, 'cursor'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<SearchResult, void, undefined> {
    let cursor: string | undefined;
    do {
      const page: SearchAnswer =
        projectId === null
          ? await this.search(null, { ...request, ...(cursor && { cursor }) }, options)
          : await this.search(projectId, { ...request, ...(cursor && { cursor }) }, options);
      yield* page.results;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }
}
