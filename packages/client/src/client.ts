import { AccessApi } from './access.js';
import { AttachmentsApi } from './attachments.js';
import { ChangesApi } from './changes.js';
import { ChangesetsApi } from './changesets.js';
import { DraftsApi } from './drafts.js';
import { FilesApi } from './files.js';
import type { components } from './generated/openapi.js';
import { HistoryApi } from './history.js';
import { LinksApi } from './links.js';
import { MemoryApi } from './memory.js';
import { ProjectsApi } from './projects.js';
import { type SearchAllRequest, type SearchAnswer, SearchApi, type SearchRequest } from './search.js';
import { SharesApi } from './shares.js';
import { type ClientOptions, type RequestOptions, Transport, TypedApi } from './transport.js';
import { TrashApi } from './trash.js';
import { WebhooksApi } from './webhooks.js';

/**
 * The mdstore SDK: `client.projects`, `client.files`, `client.history`, `client.changesets` and
 * `client.trash`, plus the
 * server's health and readiness.
 * `client.api` is the typed layer underneath, for operations the methods do not cover yet.
 */
export class MdStoreClient {
  readonly api: TypedApi;
  readonly projects: ProjectsApi;
  readonly files: FilesApi;
  /** Images, PDFs and other non-Markdown files (extensions §12). */
  readonly attachments: AttachmentsApi;
  /** Revisions, diffs, restore, move and copy (extensions §5). */
  readonly history: HistoryApi;
  /** Many files in one atomic change (extensions §9). */
  readonly changesets: ChangesetsApi;
  /** Extensions §14: Anthropic's memory tool on `memories/` (see also `memoryTool`). */
  readonly memory: MemoryApi;
  readonly drafts: DraftsApi;
  /** Search (extensions §3); `client.search` is its first page. */
  readonly searching: SearchApi;
  readonly trash: TrashApi;
  /** Extensions §9: the link graph. */
  readonly links: LinksApi;
  /** API keys and the audit log (extensions §8; admin keys). */
  readonly access: AccessApi;
  /** The change feed (extensions §7): `list`, and `follow` (an async iterator that resumes). */
  readonly changes: ChangesApi;
  /** Share links of a project (extensions §11; admin keys). */
  readonly shares: SharesApi;
  /** Webhooks (extensions §7; admin keys). */
  readonly webhooks: WebhooksApi;

  constructor(options: ClientOptions) {
    this.api = new TypedApi(new Transport(options));
    this.projects = new ProjectsApi(this.api);
    this.files = new FilesApi(this.api);
    this.attachments = new AttachmentsApi(this.api);
    this.history = new HistoryApi(this.api);
    this.changesets = new ChangesetsApi(this.api);
    this.memory = new MemoryApi(this.api);
    this.drafts = new DraftsApi(this.api);
    this.searching = new SearchApi(this.api);
    this.trash = new TrashApi(this.api);
    this.links = new LinksApi(this.api);
    this.access = new AccessApi(this.api);
    this.changes = new ChangesApi(this.api);
    this.shares = new SharesApi(this.api);
    this.webhooks = new WebhooksApi(this.api);
  }

  /**
   * Search (extensions §3) in one project, or with `projectId` null over the account's projects: one
   * page; `client.searching.iterate` walks them all.
   */
  search(projectId: string, request?: SearchRequest, options?: RequestOptions): Promise<SearchAnswer>;
  search(projectId: null, request?: SearchAllRequest, options?: RequestOptions): Promise<SearchAnswer>;
  search(
    projectId: string | null,
    request?: SearchAllRequest,
    options?: RequestOptions,
  ): Promise<SearchAnswer> {
    return projectId === null
      ? this.searching.search(null, request, options)
      : this.searching.search(projectId, request, options);
  }

  /** `GET /healthz`: the process answers. */
  async health(options?: RequestOptions): Promise<components['schemas']['Health']> {
    return (await this.api.json('get', '/healthz', {}, options)).data;
  }

  /** `GET /readyz`: the stores answer (a 503 is an `MdStoreApiError`). */
  async ready(options?: RequestOptions): Promise<components['schemas']['Readiness']> {
    return (await this.api.json('get', '/readyz', {}, options)).data;
  }
}

export function createClient(options: ClientOptions): MdStoreClient {
  return new MdStoreClient(options);
}
