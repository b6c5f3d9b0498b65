import { isMdStoreError, type ValidationIssue } from '@mdstore/core';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { toErrorResponse } from '../http/errors.js';
import type { Logger } from '../logger.js';
import { type McpTool, ToolArgumentError } from './tool-kit.js';

/** What the MCP server logs: a tool's unexpected failure. */
export type McpLogger = Pick<Logger, 'error'>;

/** Content a tool's answer carries besides its JSON (an image, a resource link: extensions §12). */
const EXTRA_CONTENT = new WeakMap<object, ContentBlock[]>();

/** The answer `value` with `blocks` after its JSON text (read_attachment's image or resource link). */
export function withContent<T extends Record<string, unknown>>(value: T, blocks: ContentBlock[]): T {
  EXTRA_CONTENT.set(value, blocks);
  return value;
}

/** A tool's answer: the JSON object, structured (it validates against the tool's outputSchema) and as text. */
export function toolResult(value: Record<string, unknown>): CallToolResult {
  const text: ContentBlock = { type: 'text', text: JSON.stringify(value) };
  return { content: [text, ...(EXTRA_CONTENT.get(value) ?? [])], structuredContent: value };
}

/**
 * A failed call as a tool error the model can read and act on: the HTTP status and `detail` the API
 * would have answered, and for a 412 the file's current `etag`, as JSON text. No `structuredContent`:
 * the SDK client (1.32) validates any `structuredContent` against the tool's `outputSchema`, errors
 * included, and would turn the error into an exception the agent never reads.
 */
export function toolError(error: unknown, tool: McpTool, logger: McpLogger): CallToolResult {
  const response = responseOf(error);
  if (response.status >= 500) {
    logger.error('MCP tool failed', {
      tool: tool.name,
      error:
        error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : error,
    });
  }
  const etag = response.headers.ETag;
  const detail = toolDetail(error) ?? toolIssues(response.detail);
  const body = { status: response.status, detail, ...(etag !== undefined && { etag }), ...response.fields };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

const responseOf = (error: unknown) =>
  error instanceof ToolArgumentError
    ? { status: 422, detail: error.issues, headers: {} as Record<string, string> }
    : toErrorResponse(error);

/** The HTTP status a failed call stands for (what its tool error says). */
export const toolErrorStatus = (error: unknown): number => responseOf(error).status;

/** The details that name an HTTP header or query parameter, in the tools' terms. */
function toolDetail(error: unknown): string | undefined {
  if (isMdStoreError(error, 'PRECONDITION_REQUIRED'))
    return "Precondition required: pass `if_match` with the file's etag (as read_file, outline or list_files gave it)";
  if (isMdStoreError(error, 'OUTLINE_TOO_LARGE'))
    return (
      'File too large for an outline: its parse would pass the work one request may do; ' +
      "read parts of it with read_file's `lines` or `section` instead"
    );
  return undefined;
}

/** Where the API says `body`, `query` or `path`, a tool caller passed an argument of the same name. */
const REQUEST_PARTS: ReadonlySet<unknown> = new Set(['body', 'query', 'path']);

function toolIssues<D>(detail: D): D {
  if (!Array.isArray(detail)) return detail;
  return (detail as ValidationIssue[]).map((issue) =>
    REQUEST_PARTS.has(issue.loc[0]) ? { ...issue, loc: ['arguments', ...issue.loc.slice(1)] } : issue,
  ) as D;
}
