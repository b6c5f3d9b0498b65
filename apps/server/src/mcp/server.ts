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
} from '@modelcontextprotocol/sdk/types.js';
import { type McpLogger, toolError, toolErrorStatus, toolResult } from './results.js';
import { toolBudget } from './tool-budgets.js';
import { type McpTool, ToolArguments, type ToolContext } from './tool-kit.js';
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
  '5. To change several files together (restructure a folder, rename and fix references), use',
  '   apply_changeset: all operations commit together or none does.',
  '6. With a propose key, propose_changes opens a draft a person reviews (read_draft, list_drafts);',
  '   publish_draft (a write key) applies it as one changeset, merging changes made since.',
  'write_file, delete_file, restore_revision and move_file always need `if_match`.',
].join('\n');

export type { McpLogger } from './results.js';

/**
 * A JSON-RPC error with its code and the plain message. The SDK sends a thrown error's `code` and
 * `message`; its `McpError` puts "MCP error <code>: " in the message, which the SDK client adds again.
 */
const rpcError = (code: ErrorCode, message: string) => Object.assign(new Error(message), { code });

// Issue 34: every tool shares the budget row of the operation it calls; one without is refused at load.
for (const tool of TOOLS) toolBudget(tool.name);

/** One MCP server per HTTP request (the endpoint is stateless), bound to the caller. */
export function createMcpServer(context: ToolContext, logger: McpLogger, tools: readonly McpTool[] = TOOLS) {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  // Extensions §8: the key's role decides what is listed; calling another tool is a 403 tool error.
  const allowed = toolsOfRole(tools, context.principal);
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: MCP_INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: allowed.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      outputSchema,
      annotations: { title, ...annotations },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) throw rpcError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const args = new ToolArguments(request.params.arguments ?? {});
    const recorded = (status: number, errorCode?: string, o?: { change: boolean; filename: string | null }) =>
      context.audit?.({
        tool: tool.name,
        projectId: textArgument(args, 'project_id'),
        filename: o ? o.filename : (textArgument(args, 'filename') ?? textArgument(args, 'path')),
        status,
        errorCode,
        ...(o && { change: o.change }),
      });
    try {
      assertRole(context.principal, toolRole(tool.name));
      const answer = await tool.run(context, args);
      const result = toolResult(answer);
      recorded(200, undefined, tool.audited?.(args, answer));
      return result;
    } catch (error) {
      const filename = tool.audited?.(args, {}).filename;
      recorded(
        toolErrorStatus(error),
        (error as { code?: unknown })?.code as string | undefined,
        filename === undefined ? undefined : { change: false, filename },
      );
      return toolError(error, tool, logger);
    }
  });
  return server;
}

/** A string argument as the caller gave it, for the audit log (null when absent or not a string). */
function textArgument(args: ToolArguments, name: string): string | null {
  const value = args.raw(name);
  return typeof value === 'string' ? value : null;
}
