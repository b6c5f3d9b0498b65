// Writes the budget table (issue 34) into docs/reliability.md, from the route table and the MCP tools.
import { readFile, writeFile } from 'node:fs/promises';
import { budgetTableMarkdown, withBudgetTable } from '../apps/server/src/http/api/budget-table.js';
import { ROUTES } from '../apps/server/src/http/api/routes-table.js';
import { TOOLS } from '../apps/server/src/mcp/tools.js';

const path = new URL('../docs/reliability.md', import.meta.url);
const document = await readFile(path, 'utf8');
const table = budgetTableMarkdown(
  ROUTES,
  TOOLS.map((tool) => tool.name),
);
await writeFile(path, withBudgetTable(document, table));
console.log(`docs/reliability.md: ${ROUTES.length} routes, ${TOOLS.length} MCP tools`);
