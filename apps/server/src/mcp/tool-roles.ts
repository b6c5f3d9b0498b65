import { type Principal, type Role, roleCovers } from '@mdstore/core';
import { ROUTES } from '../http/api/routes-table.js';
import { TOOL_OPERATIONS } from './tool-budgets.js';
import type { McpTool } from './tool-kit.js';

/**
 * Extensions §8: the least role each MCP tool needs, as the route table declares it for HTTP (the tool
 * does what that route does). A tool missing here cannot be served (`toolsOfRole` throws).
 */
export const TOOL_ROLES: Readonly<Record<string, Role>> = {
  list_projects: 'read',
  list_files: 'read',
  read_file: 'read',
  outline: 'read',
  search: 'read',
  list_revisions: 'read',
  read_revision: 'read',
  recent_changes: 'read',
  links: 'read',
  broken_links: 'read',
  create_file: 'write',
  edit_file: 'write',
  write_file: 'write',
  set_metadata: 'write',
  delete_file: 'write',
  restore_revision: 'write',
  move_file: 'write',
  apply_changeset: 'write',
  // Extensions §14: `view` reads; the core asks for `write` for every other command (as the HTTP route).
  memory: 'read',
  // Extensions §13: a `propose` key proposes; publishing needs `write`.
  propose_changes: 'propose',
  list_drafts: 'read',
  read_draft: 'read',
  publish_draft: 'write',
  list_attachments: 'read',
  read_attachment: 'read',
  write_attachment: 'write',
};

export function toolRole(name: string): Role {
  const role = TOOL_ROLES[name];
  if (role === undefined) throw new Error(`MCP tool ${name} declares no role (TOOL_ROLES)`);
  return role;
}

/** The operations a key confined to folders is refused (extensions §14), as the route table says. */
const REFUSED_TO_FOLDER_KEYS = new Set(
  ROUTES.filter((route) => route.description.folderKeys === 'refused').map(
    (route) => route.description.operationId,
  ),
);

/** Whether a key confined to folders is refused the tool's operation (its call would be a 403). */
export const refusedToFolderKeys = (name: string): boolean =>
  REFUSED_TO_FOLDER_KEYS.has(TOOL_OPERATIONS[name] ?? '');

/**
 * The tools the principal's key may call: the only ones `tools/list` shows. Those of its role, less,
 * for a key confined to folders, those whose operation it is refused.
 */
export const toolsOfRole = (tools: readonly McpTool[], principal: Principal): McpTool[] =>
  tools.filter(
    (tool) =>
      roleCovers(principal.role, toolRole(tool.name)) &&
      !(principal.pathPrefixes !== null && refusedToFolderKeys(tool.name)),
  );
