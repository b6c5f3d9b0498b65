import type { components } from './generated/openapi.js';
import type { RequestOptions, TypedApi } from './transport.js';

export type ChangesetRequest = components['schemas']['ChangesetRequest'];
export type ChangesetOperation = ChangesetRequest['operations'][number];
export type ChangesetResult = components['schemas']['ChangesetResult'];

/**
 * Changesets (extensions §9): many operations (`put`, `edit`, `delete`, `move`, each with an optional
 * `if_match`) applied in order as one transaction, all or nothing. A failing operation is an
 * `MdStoreApiError` whose `detail` names it (`["body","operations",i,…]`).
 */
export class ChangesetsApi {
  constructor(private readonly api: TypedApi) {}

  /** Applies the operations (or, with `dryRun`, validates them and changes nothing). */
  async apply(
    projectId: string,
    operations: readonly ChangesetOperation[],
    options: RequestOptions & { message?: string; dryRun?: boolean } = {},
  ): Promise<ChangesetResult> {
    const json: ChangesetRequest = {
      operations: [...operations],
      ...(options.message !== undefined && { message: options.message }),
      ...(options.dryRun !== undefined && { dry_run: options.dryRun }),
    };
    const route = '/api/projects/{project_id}/changesets';
    return (await this.api.json('post', route, { path: { project_id: projectId }, json }, options)).data;
  }
}
