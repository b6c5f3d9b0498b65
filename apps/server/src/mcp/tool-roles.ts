import { type Principal, type Role, roleCovers } from '@mdstore/core';
import { ROUTES } from '../http/api/routes-table.js';
import { TOOL_OPERATIONS } from './tool-budgets.js';
import type { McpTool } from './tool-kit.js';
import { TOOLS } from './tools.js';

const ROUTE_ROLES = new Map(ROUTES.map((route) => [route.description.operationId, route.description.role]));

/**
 * Extensions §8: the least role each MCP tool needs, the role the route table declares for the HTTP
 * operation the tool performs (`McpTool.operation`): one description, so a tool cannot ask less than
 * its route. (The memory tool's operation is `read`, like its route: the core asks for `write` for
 * every command but `view`. Proposing a draft is `propose`; publishing it needs `write`.) A tool whose
 * operation no route has fails this module's loading.
 */
export const TOOL_ROLES: Readonly<Record<string, Role>> = Object.fromEntries(
  TOOLS.map((tool) => {
    const role = ROUTE_ROLES.get(tool.operation);
    if (role === undefined || role === null)
      throw new Error(`MCP tool ${tool.name} names operation ${tool.operation}, which no keyed route has`);
    return [tool.name, role];
  }),
);

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
