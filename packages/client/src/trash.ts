import type { Attachment } from './attachments.js';
import type { MdStoreFile } from './files.js';
import type { components } from './generated/openapi.js';
import type { PageOptions } from './projects.js';
import type { RequestOptions, TypedApi } from './transport.js';

export type TrashItem = components['schemas']['TrashItem'];
export type TrashList = components['schemas']['TrashList'];

/**
 * The trash of a project (extensions §5): files deleted while `settings.trash_retention_days` is above
 * 0, kept until their `expires_date`.
 */
export class TrashApi {
  constructor(private readonly api: TypedApi) {}

  /** One page of the trash, newest deletion first. */
  async list(
    projectId: string,
    options?: RequestOptions & { limit?: number; cursor?: string | null },
  ): Promise<TrashList> {
    const query = { limit: options?.limit, cursor: options?.cursor ?? undefined };
    const path = { project_id: projectId };
    return (await this.api.json('get', '/api/projects/{project_id}/trash', { path, query }, options)).data;
  }

  /** Every item of the trash, page by page. */
  async *iterate(projectId: string, options: PageOptions = {}): AsyncGenerator<TrashItem, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.list(projectId, {
        ...options,
        limit: options.pageSize,
        ...(cursor && { cursor }),
      });
      yield* page.trash;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /**
   * Puts the file back, under its own name or `to` (409 if the name is taken); an item of `kind`
   * `attachment` comes back as the Attachment (extensions §12).
   */
  async restore(
    projectId: string,
    trashId: string,
    options: RequestOptions & { to?: string } = {},
  ): Promise<MdStoreFile | Attachment> {
    const path = { project_id: projectId, trash_id: trashId };
    const json = options.to === undefined ? {} : { to: options.to };
    const call = '/api/projects/{project_id}/trash/{trash_id}/restore';
    return (await this.api.json('post', call, { path, json }, options)).data;
  }

  /** Removes an item for good. */
  async delete(projectId: string, trashId: string, options?: RequestOptions): Promise<void> {
    const path = { project_id: projectId, trash_id: trashId };
    await this.api.request('delete', '/api/projects/{project_id}/trash/{trash_id}', { path }, options);
  }
}
