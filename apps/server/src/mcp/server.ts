// The low-level `Server`, not `McpServer`: the high-level class takes Zod schemas and validates
// arguments itself, with its own error messages. mdstore advertises plain JSON Schemas and lets the
// core judge the arguments, so that a tool error carries exactly the HTTP API's `detail`.

import { assertRole } from '@mdstore/core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { toErrorResponse } from '../http/errors.js';
import type { HttpLogger } from '../http/routes/context.js';
import { type McpTool, ToolArgumentError, ToolArguments, type ToolContext } from './tool-kit.js';
import { toolRole, toolsOfRole } from './tool-roles.js';
import { TOOLS } from './tools.js';

export const MCP_SERVER_INFO = { name: 'mdstore', version: '0.1.0' } as const;

/** What a client is told at initialisation: the discipline the tools enforce. */
export const MCP_INSTRUCTIONS = [
  'mdstore keeps Markdown files in projects. Work like this:',
  '1. Find the file (list_projects, list_files), then read what you need: outline for the headings,',
  '   read_file with `section` or `lines` for a part, or the whole file. Every read returns an `etag`.',
  '2. Change files with edit_file (precise edits; everything else stays byte for byte), passing',
  '   `if_match` with the etag you read. Use `dry_run` to see the diff first.',
  '3. A 412 error means the file changed since you read it: read it again and redo the edit.',
  '   A 409 error names what did not match (text found N times, a section that is missing or',
  '   ambiguous, with the candidates): fix the edit, do not guess.',
  '4. Nothing written is lost at once: list_revisions and read_revision show earlier versions,',
  '   restore_revision brings one back; move_file renames a file with its history.',
  'write_file, delete_file, restore_revision and move_file always need `if_match`.',
].join('\n');

/** One MCP server per HTTP request (the endpoint is stateless), bound to the caller. */
export function createMcpServer(context: ToolContext, logger: HttpLogger, tools: readonly McpTool[] = TOOLS) {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  // Extensions §8: the key's role decides what is listed; calling another tool is a 403 tool error.
  const allowed = toolsOfRole(tools, context.principal);
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: MCP_INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: allowed.map(({ name, title, description, inputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      annotations: { title, ...annotations },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    try {
      assertRole(context.principal, toolRole(tool.name));
      return toolResult(await tool.run(context, new ToolArguments(request.params.arguments ?? {})));
    } catch (error) {
      return toolError(error, tool, logger);
    }
  });
  return server;
}

/** A tool's answer: the JSON object, structured and as text (for clients that read only text). */
function toolResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/**
 * A failed call as a tool error the model can read and act on: the HTTP status and `detail` the API
 * would have answered, and for a 412 the file's current `etag`.
 */
function toolError(error: unknown, tool: McpTool, logger: HttpLogger): CallToolResult {
  const response =
    error instanceof ToolArgumentError
      ? { status: 422, detail: error.issues, headers: {} as Record<string, string> }
      : toErrorResponse(error);
  if (response.status >= 500) {
    logger.error('MCP tool failed', {
      tool: tool.name,
      error:
        error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : error,
    });
  }
  const etag = response.headers.ETag;
  const body = { status: response.status, detail: response.detail, ...(etag !== undefined && { etag }) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}
