import { readFile } from 'node:fs/promises';
import express from 'express';
import { describe, expect, it } from 'vitest';
import {
  BUDGET_TABLE_END,
  BUDGET_TABLE_START,
  budgetTableMarkdown,
} from '../../src/http/api/budget-table.js';
import { ROUTE_BUDGETS } from '../../src/http/api/budgets.js';
import { mountRoutes } from '../../src/http/api/mount.js';
import { defineRoute } from '../../src/http/api/route.js';
import { ROUTES } from '../../src/http/api/routes-table.js';
import type { RouteDeps } from '../../src/http/routes/context.js';
import { TOOL_OPERATIONS, toolBudget } from '../../src/mcp/tool-budgets.js';
import { TOOLS } from '../../src/mcp/tools.js';

// Issue 34, deliver 5: the budget table covers every route and MCP tool, and docs/reliability.md holds
// exactly the table the code generates.

describe('the budget table', () => {
  it('has a row for every route of the route table, and none for a route that does not exist', () => {
    const operations = ROUTES.map((route) => route.description.operationId);
    expect(operations.filter((operation) => !ROUTE_BUDGETS[operation])).toEqual([]);
    expect(Object.keys(ROUTE_BUDGETS).filter((operation) => !operations.includes(operation))).toEqual([]);
    for (const operation of operations) {
      expect(ROUTE_BUDGETS[operation]?.cost.trim()).not.toBe('');
      expect(ROUTE_BUDGETS[operation]?.past.trim()).not.toBe('');
    }
  });

  it('names, for every MCP tool, an operation that has a row', () => {
    const tools = TOOLS.map((tool) => tool.name);
    for (const tool of tools) expect(toolBudget(tool).budget).toBe(ROUTE_BUDGETS[TOOL_OPERATIONS[tool]!]);
    expect(Object.keys(TOOL_OPERATIONS).filter((tool) => !tools.includes(tool))).toEqual([]);
  });

  it('refuses to mount a route without a row, and to name a tool without one', () => {
    const stray = defineRoute(
      {
        method: 'GET',
        path: '/api/stray',
        operationId: 'strayOperation',
        summary: 'A route nobody budgeted',
        tags: ['Operations'],
        auth: 'none',
        role: null,
        answers: { 200: { description: 'OK' } },
      },
      () => async () => undefined,
    );
    expect(() => mountRoutes(express(), [stray], {} as RouteDeps)).toThrow(/strayOperation.*budget table/);
    expect(() => toolBudget('stray_tool')).toThrow(/stray_tool/);
  });

  it('is in docs/reliability.md exactly as the code generates it (npm run docs:budgets)', async () => {
    const document = await readFile(new URL('../../../../docs/reliability.md', import.meta.url), 'utf8');
    const start = document.indexOf(BUDGET_TABLE_START);
    const end = document.indexOf(BUDGET_TABLE_END);
    expect(start).toBeGreaterThan(0);
    const inDocs = document.slice(start + BUDGET_TABLE_START.length, end).trim();
    const generated = budgetTableMarkdown(
      ROUTES,
      TOOLS.map((tool) => tool.name),
    );
    expect(inDocs).toBe(generated);
    // One line per route and per tool, besides the two headers and their rules.
    expect(inDocs.split('\n').filter((line) => line.startsWith('| `'))).toHaveLength(
      ROUTES.length + TOOLS.length,
    );
  });
});
