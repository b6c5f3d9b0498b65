/**
 * The console's one way to the server: the same-origin REST API with the key as a bearer token. The key
 * lives in this tab only (sessionStorage, extensions §11): never a URL, a cookie or localStorage.
 */

const KEY_ITEM = 'mdstore.apiKey';

let apiKey: string | null = typeof sessionStorage === 'undefined' ? null : sessionStorage.getItem(KEY_ITEM);

export const currentKey = () => apiKey;

export function setKey(key: string | null): void {
  apiKey = key;
  if (key === null) sessionStorage.removeItem(KEY_ITEM);
  else sessionStorage.setItem(KEY_ITEM, key);
}

/** An answer the console did not expect: its status and the server's `detail`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}

export interface RequestOptions {
  readonly method?: string;
  readonly json?: unknown;
  readonly body?: BodyInit;
  readonly headers?: Record<string, string>;
  /** Statuses returned to the caller instead of thrown. */
  readonly allow?: readonly number[];
  readonly signal?: AbortSignal;
}

/** A filename as one path segment (`/` written `%2F`, extensions §1). */
export const seg = (name: string) => encodeURIComponent(name);

async function detailOf(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { detail?: unknown };
    if (typeof body.detail === 'string') return body.detail;
    if (Array.isArray(body.detail)) {
      return body.detail
        .map(
          (issue: { msg?: string; loc?: unknown[] }) => `${issue.loc?.join('.') ?? ''}: ${issue.msg ?? ''}`,
        )
        .join('; ');
    }
  } catch {
    // Not JSON: the status says enough.
  }
  return `${response.status} ${response.statusText}`;
}

/** Listeners told when the key is refused (401): the console signs out. */
const onUnauthorized = new Set<() => void>();
export const whenUnauthorized = (listener: () => void) => onUnauthorized.add(listener);

export async function request(path: string, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (apiKey !== null) headers.Authorization = `Bearer ${apiKey}`;
  let body = options.body;
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  const response = await fetch(path, {
    method: options.method ?? 'GET',
    headers,
    ...(body !== undefined && { body }),
    ...(options.signal && { signal: options.signal }),
    cache: 'no-store',
  });
  if (response.ok || options.allow?.includes(response.status)) return response;
  const detail = await detailOf(response);
  if (response.status === 401) for (const listener of onUnauthorized) listener();
  throw new ApiError(response.status, detail);
}

export async function getJson<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return (await (await request(path, options)).json()) as T;
}

export interface Project {
  id: string;
  name: string;
  description: string | null;
  is_default: boolean;
  is_active: boolean;
  file_count: number;
  total_size_bytes: number;
  history_size_bytes?: number;
  trash_size_bytes?: number;
  settings?: {
    require_if_match: boolean;
    keep_revisions: number;
    trash_retention_days: number;
    keep_revisions_days?: number;
  };
  created_date: string;
  updated_date: string;
}

export interface FileObject {
  filename: string;
  project_id: string;
  size_bytes: number;
  metadata: Record<string, unknown> | null;
  frontmatter?: Record<string, unknown> | null;
  created_date: string;
  updated_date: string;
  etag: string;
  revision: number;
}

/** The roles of keys, lowest first (extensions §8, §13): each may do what the ones before it may. */
export const ROLES = ['read', 'propose', 'write', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export interface Me {
  id: string | null;
  name: string | null;
  role: Role;
  project_ids: string[] | null;
}

/**
 * Whether the key's role covers `needed` (as the server decides, core `roleCovers`): what the console
 * offers. A role it does not know (a newer server's) is taken as `read`: the server refuses the rest.
 */
export const can = (me: Pick<Me, 'role'>, needed: Role): boolean =>
  Math.max(0, ROLES.indexOf(me.role)) >= ROLES.indexOf(needed);

/**
 * Who the key is (`GET /api/keys/current`). On a server without that route: an admin key may list
 * keys; any other key is taken as `write` and the server refuses what it may not do.
 */
export async function whoAmI(): Promise<Me> {
  const response = await request('/api/keys/current', { allow: [404, 405] });
  if (response.ok) return (await response.json()) as Me;
  const keys = await request('/api/keys', { allow: [403, 404] });
  return { id: null, name: null, role: keys.ok ? 'admin' : 'write', project_ids: null };
}

/** One file's object (metadata, front matter, revision) by an exact-name search. */
export async function fileObject(projectId: string, filename: string): Promise<FileObject | null> {
  const answer = await getJson<{ results: { file: FileObject }[] }>(`/api/projects/${projectId}/search`, {
    method: 'POST',
    json: { filter: { field: 'filename', op: 'eq', value: filename }, limit: 1 },
  });
  return answer.results[0]?.file ?? null;
}

export function uploadForm(file: Blob, filename: string): FormData {
  const form = new FormData();
  form.append('file', file, filename);
  return form;
}

/** Uploads one file; a name already taken is 409 for the caller to handle. */
export async function upload(
  projectId: string,
  filename: string,
  content: Blob | string,
): Promise<FileObject> {
  const blob = typeof content === 'string' ? new Blob([content], { type: 'text/markdown' }) : content;
  return getJson<FileObject>(`/api/projects/${projectId}/files`, {
    method: 'POST',
    body: uploadForm(blob, filename),
  });
}

export const formatBytes = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1048576
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / 1048576).toFixed(1)} MiB`;
