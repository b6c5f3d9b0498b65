import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/mcp/tools.js';
import { REPO_ROOT } from './support.js';

const firstJsonBlock = (text: string) => {
  const match = /```json\n([\s\S]*?)```/.exec(text);
  expect(match).not.toBeNull();
  return JSON.parse((match as RegExpExecArray)[1] as string) as unknown;
};

describe("the README's MCP section", () => {
  it('points at docs/agents.md, shows its client configuration and names tools that exist', async () => {
    const readme = await readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const agents = await readFile(path.join(REPO_ROOT, 'docs/agents.md'), 'utf8');
    const start = readme.indexOf('## Agents (MCP)');
    expect(start).toBeGreaterThanOrEqual(0);
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    expect(section).toContain('](docs/agents.md)');
    expect(firstJsonBlock(section)).toEqual(firstJsonBlock(agents));
    const named = [...section.matchAll(/`([a-z]+(?:_[a-z]+)*)`/g)].map((m) => m[1] as string);
    const tools = new Set(TOOLS.map((tool) => tool.name));
    const toolNames = named.filter((name) => /^[a-z]+_[a-z]+$|^search$|^outline$/.test(name));
    expect(toolNames.length).toBeGreaterThanOrEqual(4);
    for (const name of toolNames) expect(tools, name).toContain(name);
  });
});
