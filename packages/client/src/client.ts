import { FilesApi } from './files.js';
import type { components } from './generated/openapi.js';
import { ProjectsApi } from './projects.js';
import { type ClientOptions, type RequestOptions, Transport, TypedApi } from './transport.js';

/**
 * The mdstore SDK: `client.projects` and `client.files`, plus the server's health and readiness.
 * `client.api` is the typed layer underneath, for operations the methods do not cover yet.
 */
export class MdStoreClient {
  readonly api: TypedApi;
  readonly projects: ProjectsApi;
  readonly files: FilesApi;

  constructor(options: ClientOptions) {
    this.api = new TypedApi(new Transport(options));
    this.projects = new ProjectsApi(this.api);
    this.files = new FilesApi(this.api);
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
