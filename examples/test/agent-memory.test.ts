import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient } from '@mdstore/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RealServer, startRealServer } from '../../packages/client/test/support/server.js';

const run = promisify(execFile);
const repositoryRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/**
 * The agent-memory example (examples/agent-memory/main.ts) run as a program against a real mdstore
 * server and a stub of the Messages API that answers with a recorded transcript (no network): the
 * tool loop of `@anthropic-ai/sdk` runs the recorded memory commands through `memoryTool`, so what the
 * model is sent back (each `tool_result`) and what mdstore holds at the end are checked.
 */
interface Recorded {
  responses: unknown[];
}
interface ToolResult {
  type: string;
  tool_use_id: string;
  content: unknown;
  is_error?: boolean;
}

const body = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
};

describe('the agent-memory example', () => {
  let mdstore: RealServer;
  const requests: Array<Record<string, unknown>> = [];
  const stub = createServer(async (req, res) => {
    const transcript = JSON.parse(
      await readFile(resolve(repositoryRoot, 'examples/agent-memory/transcript.json'), 'utf8'),
    ) as Recorded;
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
      res.writeHead(404).end();
      return;
    }
    requests.push(await body(req));
    const answer = transcript.responses[requests.length - 1];
    res.writeHead(answer ? 200 : 500, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify(answer ?? { type: 'error', error: { type: 'api_error', message: 'transcript ended' } }),
    );
  });

  beforeAll(async () => {
    mdstore = await startRealServer();
    await new Promise<void>((done) => stub.listen(0, '127.0.0.1', done));
  });
  afterAll(async () => {
    await new Promise((done) => stub.close(done));
    await mdstore?.stop();
  });

  it('keeps the recorded agent memory in mdstore and answers the model with the tool texts', async () => {
    const account = await mdstore.account('agent');
    const { port } = stub.address() as AddressInfo;
    const { stdout } = await run(
      process.execPath,
      ['--conditions=mdstore-source', '--import', 'tsx', 'examples/agent-memory/main.ts', 'I like green tea'],
      {
        cwd: repositoryRoot,
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? '',
          MDSTORE_URL: mdstore.url,
          MDSTORE_API_KEY: account.apiKey,
          MDSTORE_PROJECT_ID: account.defaultProjectId,
          ANTHROPIC_API_KEY: 'sk-ant-recorded-transcript',
          ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
        },
      },
    );
    expect(requests).toHaveLength(6);
    expect(requests[0]?.tools).toEqual([{ type: 'memory_20250818', name: 'memory' }]);
    // The tool results the model was sent, turn by turn (the last user message of each request).
    const results = requests.slice(1).map((request) => {
      const messages = request.messages as Array<{ role: string; content: ToolResult[] }>;
      const last = messages.at(-1)!;
      expect(last.role).toBe('user');
      const [result] = last.content;
      return { content: result?.content, is_error: result?.is_error ?? false };
    });
    const text = (content: unknown) =>
      typeof content === 'string'
        ? content
        : (content as Array<{ text: string }>).map((b) => b.text).join('');
    expect(results.map((r) => [text(r.content), r.is_error])).toEqual([
      [
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n4K\t/memories",
        false,
      ],
      ['Error: The path /memories/preferences.md does not exist. Please provide a valid path.', true],
      ['File created successfully at: /memories/preferences.md', false],
      [
        'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n' +
          '     1\t# User preferences\n     2\t- drinks: green tea\n     3\t',
        false,
      ],
      [
        "Here's the content of /memories/preferences.md with line numbers:\n" +
          '     1\t# User preferences\n     2\t- drinks: green tea\n     3\t',
        false,
      ],
    ]);
    expect(stdout).toContain('assistant: Noted: you like green tea. I saved it to my memory.');
    expect(stdout).toContain('stored: memories/preferences.md (');
    const client = createClient({ baseUrl: mdstore.url, apiKey: account.apiKey });
    expect(await client.files.readText(account.defaultProjectId, 'memories/preferences.md')).toBe(
      '# User preferences\n- drinks: green tea\n',
    );
    const history = await client.history.listRevisions(account.defaultProjectId, 'memories/preferences.md');
    expect(history.revisions).toHaveLength(2);
  }, 90_000);
});
