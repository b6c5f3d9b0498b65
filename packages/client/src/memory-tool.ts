import type { MdStoreClient } from './client.js';
import type { MemoryCommandRequest } from './memory.js';

/**
 * The handler interface of `@anthropic-ai/sdk`'s memory tool (`MemoryToolHandlers`), restated from the
 * OpenAPI types so that neither the SDK's code nor its type declarations need `@anthropic-ai/sdk`
 * installed; packages/client/test/memory-tool.test.ts checks at compile time that it is assignable to
 * the SDK's own `MemoryToolHandlers` (and the SDK's commands to these inputs).
 */
export type MemoryHandlers = {
  [K in MemoryCommandRequest['command']]: (
    command: Extract<MemoryCommandRequest, { command: K }>,
  ) => Promise<string>;
};

/**
 * A handler for `@anthropic-ai/sdk`'s memory tool (`betaMemoryTool(memoryTool(client, { projectId }))`)
 * that keeps the agent's memory in an mdstore project (extensions §14) instead of on the local disk:
 * every command is `POST /api/projects/{id}/memory`. A success is returned as the tool's text; one of
 * the tool's errors is thrown as an `Error` with exactly that text, as the SDK's own
 * `BetaLocalFilesystemMemoryTool` does, so the tool runner answers the model the same way
 * (`is_error: true`, "Error: …"). An HTTP failure (a key without `write`, a project out of reach) is
 * thrown as the client's `MdStoreApiError`.
 */
export function memoryTool(client: MdStoreClient, options: { projectId: string }): MemoryHandlers {
  const run = async (command: MemoryCommandRequest): Promise<string> => {
    const answer = await client.memory.run(options.projectId, command);
    if (answer.is_error) throw new Error(answer.result);
    return answer.result;
  };
  return { view: run, create: run, str_replace: run, insert: run, delete: run, rename: run };
}
