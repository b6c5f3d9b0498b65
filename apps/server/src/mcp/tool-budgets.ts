import { budgetOf, type OperationBudget } from '../http/api/budgets.js';
import { TOOLS } from './tools.js';

/**
 * Each MCP tool calls the use case of one HTTP operation, with the same limits: its row of the budget
 * table is that operation's (`http/api/budgets.ts`), named by the tool's own `operation`. A tool whose
 * operation has no row cannot be served (`createMcpServer` checks), so a new tool cannot ship without
 * its bound.
 */
export const TOOL_OPERATIONS: Readonly<Record<string, string>> = Object.fromEntries(
  TOOLS.map((tool) => [tool.name, tool.operation]),
);

/** The budget row a tool shares, or an error naming the tool. */
export function toolBudget(tool: string): { readonly operation: string; readonly budget: OperationBudget } {
  const operation = TOOL_OPERATIONS[tool];
  if (!operation)
    throw new Error(`MCP tool ${tool} names no operation in the budget table (mcp/tool-budgets.ts)`);
  return { operation, budget: budgetOf(operation) };
}
