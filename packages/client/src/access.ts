import type { components } from './generated/openapi.js';
import type { RequestOptions, TypedApi } from './transport.js';

export type KeyCreate = components['schemas']['KeyCreate'];
export type Key = components['schemas']['Key'];
export type KeyCreated = components['schemas']['KeyCreated'];
export type AuditEntry = components['schemas']['AuditEntry'];
export type AuditList = components['schemas']['AuditList'];

export interface AuditQuery {
  limit?: number;
  cursor?: string;
  since?: string;
  until?: string;
  key_id?: string;
  project_id?: string;
  status?: number;
}

/** API keys and the audit log (extensions §8); every call needs an `admin` key. */
export class AccessApi {
  constructor(private readonly api: TypedApi) {}

  /** A key with no more than the calling key has; `api_key` is its secret, shown only here. */
  async createKey(body: KeyCreate, options?: RequestOptions): Promise<KeyCreated> {
    return (await this.api.json('post', '/api/keys', { json: body }, options)).data;
  }

  /** The account's keys that are not revoked, oldest first (no secrets). */
  async listKeys(options?: RequestOptions): Promise<Key[]> {
    return (await this.api.json('get', '/api/keys', {}, options)).data.keys;
  }

  /** The key making the request (any role): its id, name, role, projects and expiry. */
  async currentKey(options?: RequestOptions): Promise<Key> {
    return (await this.api.json('get', '/api/keys/current', {}, options)).data;
  }

  /** Revokes a key at once (a key may revoke itself). */
  async revokeKey(keyId: string, options?: RequestOptions): Promise<void> {
    await this.api.request('delete', '/api/keys/{key_id}', { path: { key_id: keyId } }, options);
  }

  /** One page of the audit log, newest first. */
  async audit(query: AuditQuery = {}, options?: RequestOptions): Promise<AuditList> {
    return (await this.api.json('get', '/api/audit', { query }, options)).data;
  }
}
