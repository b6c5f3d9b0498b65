import type { MemoryToolHandlers } from '@anthropic-ai/sdk/tools/memory/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, MdStoreApiError, type MemoryHandlers, memoryTool } from '../src/index.js';
import { type RealServer, startRealServer } from './support/server.js';

/**
 * `memoryTool` (extensions §14) against a real server: a success is the tool's text, an error text is
 * thrown as an Error with exactly that message (as the SDK's local backend throws), an HTTP refusal as
 * `MdStoreApiError`. Its type is checked here against the SDK's own handler interface.
 */

// Compile-time: our handlers are the SDK's handlers (and would stop compiling if either drifted).
const _fits = (handlers: MemoryHandlers): MemoryToolHandlers => handlers;
void _fits;

let server: RealServer;
beforeAll(async () => {
  server = await startRealServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('memoryTool', () => {
  it('runs each command on the project and throws the error texts', async () => {
    const account = await server.account();
    const client = createClient({ baseUrl: server.url, apiKey: account.apiKey });
    const tool = memoryTool(client, { projectId: account.defaultProjectId });
    expect(await tool.create({ command: 'create', path: '/memories/a.txt', file_text: 'one\n' })).toBe(
      'File created successfully at: /memories/a.txt',
    );
    expect(
      await tool.insert({ command: 'insert', path: '/memories/a.txt', insert_line: 0, insert_text: 'zero' }),
    ).toBe('The file /memories/a.txt has been edited.');
    await expect(tool.view({ command: 'view', path: '/memories/none.txt' })).rejects.toThrow(
      new Error('The path /memories/none.txt does not exist. Please provide a valid path.'),
    );
    expect(
      await tool.rename({ command: 'rename', old_path: '/memories/a.txt', new_path: '/memories/b.txt' }),
    ).toBe('Successfully renamed /memories/a.txt to /memories/b.txt');
    expect(await tool.delete({ command: 'delete', path: '/memories/b.txt' })).toBe(
      'Successfully deleted /memories/b.txt',
    );
    const stranger = memoryTool(
      createClient({ baseUrl: server.url, apiKey: (await server.account()).apiKey }),
      {
        projectId: account.defaultProjectId,
      },
    );
    await expect(stranger.view({ command: 'view', path: '/memories' })).rejects.toBeInstanceOf(
      MdStoreApiError,
    );
  });
});
