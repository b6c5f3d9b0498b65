import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/api/routes-table.js';
import { TOOL_OPERATIONS } from '../../src/mcp/tool-budgets.js';
import { refusedToFolderKeys, TOOL_ROLES } from '../../src/mcp/tool-roles.js';
import { TOOLS } from '../../src/mcp/tools.js';

/**
 * Issue 35: MCP is not a second catalog. Each tool names the HTTP operation it performs, and its role,
 * budget row and folder-key rule are that route's description, so a tool and its route cannot disagree.
 */
const routeOf = (operation: string) => ROUTES.find((route) => route.description.operationId === operation);

describe('MCP tools from the route table', () => {
  it('each tool names an existing operation, once per tool', () => {
    expect(new Set(TOOLS.map((tool) => tool.name)).size).toBe(TOOLS.length);
    for (const tool of TOOLS) expect(routeOf(tool.operation), tool.name).toBeDefined();
  });

  it("a tool's role, budget operation and folder-key rule are its route's", () => {
    for (const tool of TOOLS) {
      const route = routeOf(tool.operation)!.description;
      expect(TOOL_ROLES[tool.name], tool.name).toBe(route.role);
      expect(TOOL_OPERATIONS[tool.name], tool.name).toBe(route.operationId);
      expect(refusedToFolderKeys(tool.name), tool.name).toBe(route.folderKeys === 'refused');
    }
  });

  it('a read-only tool needs no more than read, and a tool needing write is never read-only', () => {
    for (const tool of TOOLS) {
      if (tool.annotations.readOnlyHint) expect(TOOL_ROLES[tool.name], tool.name).toBe('read');
      if (TOOL_ROLES[tool.name] === 'write') expect(tool.annotations.readOnlyHint, tool.name).toBe(false);
    }
  });
});
