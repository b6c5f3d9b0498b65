import {
  FileNotFoundError,
  ForbiddenError,
  OperationNotAllowedError,
  ProjectNotFoundError,
} from '../errors.js';
import { type ProjectRecord, ROLES, type Role } from '../model/records.js';
import type { RecordsReader } from '../ports/records.js';
import { parseProjectId } from '../validation/schemas.js';
import type { Principal } from './authentication.js';

/** Whether a key of role `held` may do what needs `needed` (read < write < admin). */
export const roleCovers = (held: Role, needed: Role): boolean => ROLES.indexOf(held) >= ROLES.indexOf(needed);

/** Refuses (`403` "API key does not allow this operation") a principal whose role does not cover `needed`. */
export function assertRole(principal: Principal, needed: Role): void {
  if (!roleCovers(principal.role, needed)) throw new OperationNotAllowedError();
}

/** Whether the key reaches the project (extensions §8): every project, or one of its `projectIds`. */
export const inKeyScope = (principal: Principal, projectId: string): boolean =>
  principal.projectIds === null || principal.projectIds.includes(projectId);

/**
 * The access rule of every project and file operation: a malformed id is 422, a project that does not
 * exist, is no longer active or is outside the key's project scope is 404 whoever asks, and an active
 * project of another account is 403. Given the `path` of the file (or attachment) the operation names,
 * a path outside the key's folders is then 404 too (extensions §14), after the project's answer.
 */
export async function loadOwnedProject(
  records: RecordsReader,
  principal: Principal,
  rawProjectId: string,
  path?: string,
  notFound?: (path: string) => Error,
): Promise<ProjectRecord> {
  const projectId = parseProjectId(rawProjectId);
  const project = assertOwnedActive(await records.findProjectById({ projectId }), principal, projectId);
  if (path !== undefined) assertPathInScope(principal, path, notFound);
  return project;
}

export function assertOwnedActive(
  project: ProjectRecord | null,
  principal: Principal,
  projectId: string,
): ProjectRecord {
  if (project?.status !== 'active') throw new ProjectNotFoundError(projectId);
  return assertReachable(project, principal, projectId);
}

/**
 * The one decision of whether a key reaches a project, whatever its state (extensions §0, §8): a project
 * that does not exist or is outside the key's project scope is 404, one of another account is 403 (the
 * interface's detail). Routes that take a project id in a query or a body (the change feed, webhooks,
 * keys) decide with it as the project routes do.
 */
export function assertReachable(
  project: ProjectRecord | null,
  principal: Principal,
  projectId: string,
): ProjectRecord {
  if (!project || !inKeyScope(principal, projectId)) throw new ProjectNotFoundError(projectId);
  if (project.accountId !== principal.accountId) throw new ForbiddenError();
  return project;
}

/**
 * Whether `path` (a file's name or an attachment's path) is inside one of `folders` (each ending with
 * `/`), or `folders` is null (every path). The one test of a key's folders (extensions §14).
 */
export const inFolders = (folders: readonly string[] | null, path: string): boolean =>
  folders === null || folders.some((folder) => path.startsWith(folder));

/** Whether the key reaches the file or attachment at `path` (extensions §14): every path, or one under its folders. */
export const inPathScope = (principal: Pick<Principal, 'pathPrefixes'>, path: string): boolean =>
  inFolders(principal.pathPrefixes, path);

/**
 * The access rule of a file or an attachment by name (extensions §14): a path outside the key's folders
 * is answered as one that does not exist (`404`, as §8's project scope answers), whether it exists or
 * not, for reads and writes alike. `notFound` makes the answer of the route's kind.
 */
export function assertPathInScope(
  principal: Pick<Principal, 'pathPrefixes'>,
  path: string,
  notFound: (path: string) => Error = (name) => new FileNotFoundError(name),
): void {
  if (!inPathScope(principal, path)) throw notFound(path);
}

/**
 * Operations whose effect spans every file of a project (its settings, its deletion, a restore as of a
 * time, an import that replaces, webhooks that see every change) are not for a key scoped to folders:
 * `403` "API key does not allow this operation", as for a role that does not cover them.
 */
export function assertWholeProjectReach(principal: Pick<Principal, 'pathPrefixes'>): void {
  if (principal.pathPrefixes !== null) throw new OperationNotAllowedError();
}

/**
 * The prefixes a walk under `prefix` ('' for all) covers for this key, in code point order and disjoint:
 * `[prefix]` for a key without folders; otherwise, for each of its folders, the narrower of the two when
 * one holds the other (none when they are apart). Empty: the key reaches nothing under `prefix`.
 */
export function prefixesInScope(
  principal: Pick<Principal, 'pathPrefixes'>,
  prefix: string,
): readonly string[] {
  if (principal.pathPrefixes === null) return [prefix];
  const narrowed = principal.pathPrefixes.flatMap((folder) =>
    prefix.startsWith(folder) ? [prefix] : folder.startsWith(prefix) ? [folder] : [],
  );
  return [...new Set(narrowed)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
