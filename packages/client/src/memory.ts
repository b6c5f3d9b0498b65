import type { components } from './generated/openapi.js';
import type { RequestOptions, TypedApi } from './transport.js';

export type MemoryCommandRequest = components['schemas']['MemoryCommandRequest'];
export type MemoryResult = components['schemas']['MemoryResult'];

/**
 * Agent memory (extensions §14): one command of Anthropic's memory tool (`memory_20250818`) on the
 * project's folder `memories/`. The answer is the tool's text, its errors included (`is_error: true`);
 * `memoryTool` (memory-tool.ts) turns this into a handler for `@anthropic-ai/sdk`.
 */
export class MemoryApi {
  constructor(private readonly api: TypedApi) {}

  /** Runs one command (`view` needs a read key, the others a write key). */
  async run(
    projectId: string,
    command: MemoryCommandRequest,
    options: RequestOptions = {},
  ): Promise<MemoryResult> {
    const route = '/api/projects/{project_id}/memory';
    return (await this.api.json('post', route, { path: { project_id: projectId }, json: command }, options))
      .data;
  }
}
