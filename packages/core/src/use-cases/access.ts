import { ForbiddenError, ProjectNotFoundError } from '../errors.js';
import type { ProjectRecord } from '../model/records.js';
import type { RecordsReader } from '../ports/records.js';
import { parseProjectId } from '../validation/schemas.js';
import type { Principal } from './authentication.js';

/**
 * The access rule of every project and file operation: a malformed id is 422, a project that does not
 * exist or is no longer active is 404 whoever asks, and an active project of another account is 403.
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
  if (project.accountId !== principal.accountId) throw new ForbiddenError();
  return project;
}
