import { ForbiddenError, OperationNotAllowedError, ProjectNotFoundError } from '../errors.js';
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
 * project of another account is 403.
 */
export async function loadOwnedProject(
  records: RecordsReader,
  principal: Principal,
  rawProjectId: string,
): Promise<ProjectRecord> {
  const projectId = parseProjectId(rawProjectId);
  const project = await records.findProjectById({ projectId });
  return assertOwnedActive(project, principal, projectId);
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
