import type { MdStoreClient, Project } from '@mdstore/client';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class UnknownProjectError extends Error {
  override readonly name = 'UnknownProjectError';
}

/** A project id as given, a project's name looked up among the active ones, or the default project. */
export async function resolveProjectId(client: MdStoreClient, spec: string | undefined): Promise<string> {
  if (spec !== undefined && UUID.test(spec)) return spec.toLowerCase();
  const projects: Project[] = [];
  for await (const project of client.projects.iterate()) if (project.is_active) projects.push(project);
  const found =
    spec === undefined ? projects.find((p) => p.is_default) : projects.find((p) => p.name === spec);
  if (!found) {
    throw new UnknownProjectError(
      spec === undefined ? 'the account has no default project' : `no project named ${JSON.stringify(spec)}`,
    );
  }
  return found.id;
}
