import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ChildServer, REPO_ROOT, spawnServer } from './support.js';

const run = promisify(execFile);

let dataDir: string;
let started: ChildServer | undefined;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'mdstore-mcp-start-'));
});
afterEach(async () => {
  if (started?.child.exitCode === null) {
    const exited = once(started.child, 'exit');
    started.child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  }
  await rm(dataDir, { recursive: true, force: true });
});

/**
 * An MCP client session against the built server as operators run it (`npm start`, which builds first,
 * on a free port with a fresh data folder), with a key made by the admin CLI: initialize, tools/list,
 * a read, an edit with if_match, and the same if_match again, now stale, refused.
 */
describe('MCP against npm start', () => {
  it('initialize, tools/list, read, edit with if_match, stale if_match rejected', async () => {
    started = spawnServer({ MDSTORE_DATA_DIR: dataDir, PORT: '0' }, ['npm', 'start']);
    const ready = await started.logLine(/^mdstore listening on /);
    const url = String(ready.url);
    const { stdout } = await run(
      'npm',
      ['run', '-s', 'mdstore', '--', 'accounts', 'create', '--name', 'agent'],
      {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, MDSTORE_DATA_DIR: dataDir },
        timeout: 60_000,
      },
    );
    const account = JSON.parse(stdout) as { api_key: string; default_project_id: string };

    const client = new Client({ name: 'npm-start-session', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', url), {
        requestInit: { headers: { Authorization: `Bearer ${account.api_key}` } },
      }),
    );
    expect(client.getServerVersion()?.name).toBe('mdstore');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['read_file', 'edit_file', 'create_file', 'outline']),
    );
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      // A tool error is JSON text, without structuredContent.
      const value = result.isError
        ? JSON.parse((result.content as Array<{ text: string }>)[0]!.text)
        : result.structuredContent;
      return { isError: result.isError === true, value: value as Record<string, unknown> };
    };
    const file = { project_id: account.default_project_id, filename: 'plan.md' };
    expect((await call('create_file', { ...file, content: '# Plan\n\n## Steps\n\n1. read\n' })).isError).toBe(
      false,
    );
    const read = await call('read_file', { ...file, section: 'Steps' });
    expect(read).toMatchObject({ isError: false, value: { content: '## Steps\n\n1. read\n', revision: 1 } });
    const etag = read.value.etag as string;
    const edit = { ...file, edits: [{ op: 'append', section: 'Steps', text: '2. edit\n' }], if_match: etag };
    const edited = await call('edit_file', edit);
    expect(edited).toMatchObject({ isError: false, value: { revision: 2 } });
    expect(edited.value.diff).toContain('+2. edit');
    const stale = await call('edit_file', edit);
    expect(stale).toEqual({
      isError: true,
      value: { status: 412, detail: 'Precondition failed', etag: edited.value.etag },
    });
    expect((await call('read_file', file)).value.content).toBe('# Plan\n\n## Steps\n\n1. read\n2. edit\n');
    await client.close();
  }, 240_000);
});
