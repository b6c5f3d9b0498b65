import {
  createClient,
  describeDetail,
  type Key,
  MdStoreApiError,
  type MdStoreClient,
  type MdStoreFile,
} from '@mdstore/client';

/**
 * The console's one way to the server: the SDK (`@mdstore/client`) on the same origin, with the key as
 * its bearer token. Every call of the screens is a method of `sdk()`; no screen builds an `/api/` path
 * (test/sdk-only.test.ts checks the sources). The key lives in this tab only (sessionStorage, extensions
 * §11): never a URL, a cookie or localStorage.
 */

const KEY_ITEM = 'mdstore.apiKey';

let apiKey: string | null = typeof sessionStorage === 'undefined' ? null : sessionStorage.getItem(KEY_ITEM);
let client: MdStoreClient | undefined;

export const currentKey = () => apiKey;

export function setKey(key: string | null): void {
  apiKey = key;
  client = undefined;
  if (key === null) sessionStorage.removeItem(KEY_ITEM);
  else sessionStorage.setItem(KEY_ITEM, key);
}

/** Listeners told when the key is refused (401): the console signs out. */
const onUnauthorized = new Set<() => void>();
export const whenUnauthorized = (listener: () => void) => onUnauthorized.add(listener);

/**
 * The `fetch` the SDK sends with: never the HTTP cache (every answer is the server's own), and every 401
 * tells the listeners before the SDK throws its error.
 */
const consoleFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, { ...init, cache: 'no-store' });
  if (response.status === 401) for (const listener of onUnauthorized) listener();
  return response;
};

/**
 * The SDK for the current key, made again when the key changes. No retries: a 429 or 503 is shown as
 * the error it is, as a person is waiting (the SDK's retries are for scripts).
 */
export function sdk(): MdStoreClient {
  client ??= createClient({
    baseUrl: typeof location === 'undefined' ? 'http://localhost' : location.origin,
    ...(apiKey !== null && { apiKey }),
    fetch: consoleFetch,
    retry: false,
  });
  return client;
}

/** Whether `caught` is the server's answer with one of `statuses`. */
export const isStatus = (caught: unknown, ...statuses: number[]): caught is MdStoreApiError =>
  caught instanceof MdStoreApiError && statuses.includes(caught.status);

/**
 * What the console shows of an error: the server's `detail` (issues as `loc: msg`); an answer that is
 * not the server's (a proxy's page) by its status and what the SDK read of it; else the error itself.
 */
export function errorText(caught: unknown): string {
  if (!(caught instanceof MdStoreApiError)) return String(caught);
  const text = describeDetail(caught.detail);
  const fromServer = (caught.body as { detail?: unknown } | null | undefined)?.detail !== undefined;
  return fromServer ? text : `${caught.status} ${text}`;
}

/** The value of a call, or `fallback` when the server answers one of `statuses` (a route it lacks). */
export async function unless<T, F>(call: Promise<T>, fallback: F, ...statuses: number[]): Promise<T | F> {
  try {
    return await call;
  } catch (caught) {
    if (isStatus(caught, ...statuses)) return fallback;
    throw caught;
  }
}

/** The roles of keys, lowest first (extensions §8, §13): each may do what the ones before it may. */
export const ROLES = ['read', 'propose', 'write', 'admin'] as const satisfies readonly Key['role'][];
export type Role = Key['role'];

/** Who the key is: its row of `GET /api/keys/current`, or what the console could tell without it. */
export type Me = Pick<Key, 'role' | 'project_ids'> & { id: string | null; name: string | null };

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
  const found = await unless(sdk().access.currentKey(), null, 404, 405);
  if (found !== null) return found;
  const admin = await unless(
    sdk()
      .access.listKeys()
      .then(() => true),
    false,
    403,
    404,
  );
  return { id: null, name: null, role: admin ? 'admin' : 'write', project_ids: null };
}

/** One file's object (metadata, front matter, revision) by an exact-name search. */
export async function fileObject(projectId: string, filename: string): Promise<MdStoreFile | null> {
  const answer = await sdk().search(projectId, {
    filter: { field: 'filename', op: 'eq', value: filename },
    limit: 1,
  });
  return answer.results[0]?.file ?? null;
}

export const formatBytes = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1048576
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / 1048576).toFixed(1)} MiB`;
