import type { components } from './generated/openapi.js';
import type { PageOptions } from './projects.js';
import type { RequestOptions, TypedApi } from './transport.js';

export type FileLinks = components['schemas']['FileLinks'];
export type OutgoingLink = components['schemas']['OutgoingLink'];
export type IncomingLink = components['schemas']['IncomingLink'];
export type BrokenLink = components['schemas']['BrokenLink'];
export type BrokenLinkList = components['schemas']['BrokenLinkList'];
export type OrphanList = components['schemas']['OrphanList'];

type PageRequest = RequestOptions & { limit?: number; cursor?: string | null };

/** The link graph of a project (extensions §9): links of a file, broken links, orphans. */
export class LinksApi {
  constructor(private readonly api: TypedApi) {}

  /**
   * One page of the file's outgoing links (resolved now), then the links of other files to it: at most
   * `limit` links in all (default 1000); the rest follow from `next_cursor` until it is null.
   */
  async ofFile(projectId: string, filename: string, options?: PageRequest): Promise<FileLinks> {
    const path = { project_id: projectId, filename };
    const query = { limit: options?.limit, cursor: options?.cursor ?? undefined };
    return (
      await this.api.json(
        'get',
        '/api/projects/{project_id}/files/{filename}/links',
        { path, query },
        options,
      )
    ).data;
  }

  /** One page of broken links (a page may hold fewer than `limit`; the list ends at `next_cursor: null`). */
  async broken(projectId: string, options?: PageRequest): Promise<BrokenLinkList> {
    const query = { limit: options?.limit, cursor: options?.cursor ?? undefined };
    const path = { project_id: projectId };
    return (await this.api.json('get', '/api/projects/{project_id}/links/broken', { path, query }, options))
      .data;
  }

  /** Every broken link of the project, page by page. */
  async *iterateBroken(
    projectId: string,
    options: PageOptions = {},
  ): AsyncGenerator<BrokenLink, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.broken(projectId, {
        ...options,
        limit: options.pageSize,
        ...(cursor && { cursor }),
      });
      yield* page.links;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /** One page of orphans: files no other file links to. */
  async orphans(projectId: string, options?: PageRequest): Promise<OrphanList> {
    const query = { limit: options?.limit, cursor: options?.cursor ?? undefined };
    const path = { project_id: projectId };
    return (await this.api.json('get', '/api/projects/{project_id}/links/orphans', { path, query }, options))
      .data;
  }
}
