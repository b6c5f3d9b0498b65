import type { components } from './generated/openapi.js';
import type { RequestOptions, TypedApi } from './transport.js';

export type ShareCreate = components['schemas']['ShareCreate'];
export type Share = components['schemas']['Share'];
export type ShareCreated = components['schemas']['ShareCreated'];

/** Share links of a project (extensions §11); every call needs an `admin` key. */
export class SharesApi {
  constructor(private readonly api: TypedApi) {}

  /**
   * A link that shows `filename`, or every file under the folder `prefix` (ending with `/`), without a
   * key; `url` holds its token and is shown only here.
   */
  async create(projectId: string, body: ShareCreate, options?: RequestOptions): Promise<ShareCreated> {
    const path = { project_id: projectId };
    return (await this.api.json('post', '/api/projects/{project_id}/shares', { path, json: body }, options))
      .data;
  }

  /** The project's links that still work, oldest first (no tokens). */
  async list(projectId: string, options?: RequestOptions): Promise<Share[]> {
    const path = { project_id: projectId };
    return (await this.api.json('get', '/api/projects/{project_id}/shares', { path }, options)).data.shares;
  }

  /** Revokes a link: it stops working at once, on every instance. */
  async revoke(projectId: string, shareId: string, options?: RequestOptions): Promise<void> {
    const path = { project_id: projectId, share_id: shareId };
    await this.api.request('delete', '/api/projects/{project_id}/shares/{share_id}', { path }, options);
  }
}
