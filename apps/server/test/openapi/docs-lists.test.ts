import { readFile } from 'node:fs/promises';
import { ROLES } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/mcp/tools.js';

// Issue 35, item 7: the docs' lists of operations are checked against the code, so a new tool or role
// cannot ship with a missing, doubled or contradictory row (agents.md once listed `move_file` twice and
// left out `recent_changes`; api.md had two `read` rows).

const doc = (name: string) => readFile(new URL(`../../../../docs/${name}`, import.meta.url), 'utf8');

/** The first cell of each row of the Markdown table that follows `heading`'s header row. */
function firstCells(text: string, header: RegExp): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => header.test(line));
  expect(start, `table ${header}`).toBeGreaterThanOrEqual(0);
  const cells: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    cells.push(line.split('|')[1]!.trim().replace(/^`|`$/g, ''));
  }
  return cells;
}

describe('the docs list what the code has', () => {
  it("docs/agents.md's tool table has one row per MCP tool, and no other", async () => {
    const rows = firstCells(await doc('agents.md'), /^\| tool \| arguments \|/);
    expect([...rows].sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
  });

  it("docs/api.md's roles table has one row per role, in order", async () => {
    const rows = firstCells(await doc('api.md'), /^\| role +\| may +\|/);
    expect(rows).toEqual([...ROLES]);
  });
});
