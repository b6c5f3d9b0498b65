import { hasNulCharacter, ISSUE, type MdStore, type Principal, type ValidationIssue } from '@mdstore/core';

/**
 * What an MCP tool is made of: a name, a JSON Schema for its arguments, annotations, and a function
 * from arguments to a JSON answer. The table in tools.ts lists them; adding a tool is one entry.
 * Tools call the same use cases as the HTTP routes and throw the same errors, so a tool error carries
 * the HTTP API's `status` and `detail`, phrased for a tool caller where it names HTTP (results.ts).
 */

export interface ToolContext {
  readonly store: MdStore;
  readonly principal: Principal;
  readonly signal: AbortSignal;
  /** Told of every finished call, for the audit log (extensions §8); absent, nothing is recorded. */
  readonly audit?: (call: ToolCallOutcome) => void;
}

/** What the audit log is told of a tool call: never its content or metadata, only where it acted. */
export interface ToolCallOutcome {
  readonly tool: string;
  readonly projectId: string | null;
  readonly filename: string | null;
  /** The HTTP status the API would have answered (200 for a success). */
  readonly status: number;
  /** The core's error code of a failure, if any (a project's 404 is recorded, a file's is not). */
  readonly errorCode: string | undefined;
  /** A success that changed files although the tool's role is `read` (the memory tool, extensions §14). */
  readonly change?: boolean;
}

export type JsonSchema = Record<string, unknown>;

export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  /** mdstore's tools act on the caller's own projects only. */
  readonly openWorldHint: false;
}

export interface McpTool {
  readonly name: string;
  /**
   * The HTTP operation (`operationId` of the route table) whose use case the tool calls: its role
   * (tool-roles.ts), its budget row (tool-budgets.ts) and what a key confined to folders may do come
   * from that route's description, never from a second table.
   */
  readonly operation: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonSchema & { type: 'object' };
  /** The JSON Schema of its answer (`structuredContent`), from answers.ts. */
  readonly outputSchema: JsonSchema & { type: 'object' };
  readonly annotations: ToolAnnotations;
  run(context: ToolContext, args: ToolArguments): Promise<Record<string, unknown>>;
  /**
   * For a tool whose arguments decide whether it changes files (memory): what its audit entry says of
   * a call (of a failed one, only its `filename` is used, the answer being `{}`); absent, the tool's
   * role and its `filename` (else `path`) argument decide.
   */
  audited?(
    args: ToolArguments,
    answer: Record<string, unknown>,
  ): { change: boolean; filename: string | null };
}

export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

export const writes = (o: { destructive: boolean; idempotent: boolean }): ToolAnnotations => ({
  readOnlyHint: false,
  destructiveHint: o.destructive,
  idempotentHint: o.idempotent,
  openWorldHint: false,
});

/** A tool's arguments were not what its schema says: a 422 with `loc` `["arguments", NAME]`. */
export class ToolArgumentError extends Error {
  constructor(readonly issues: readonly ValidationIssue[]) {
    super(issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '));
    this.name = 'ToolArgumentError';
  }
}

const argumentIssue = (name: string, msg: string, type: string): ValidationIssue => ({
  loc: ['arguments', name],
  msg,
  type,
});

/**
 * String arguments that are a file's text, where any character is content. Every other string argument
 * (an id, a filename, a prefix, a cursor…) goes to a store as is, and no store can hold U+0000 in text
 * (Postgres refuses it): such a value is refused here, as the HTTP edge refuses it in a path or a query.
 */
const TEXT_ARGUMENTS: ReadonlySet<string> = new Set(['content']);

/**
 * The arguments of one call, read by name. The schemas are advertised to clients but not trusted: a
 * missing or mistyped argument is refused here, and everything else (ids, filenames, edits, metadata)
 * is judged by the core exactly as for HTTP.
 */
export class ToolArguments {
  constructor(private readonly values: Record<string, unknown>) {}

  string(name: string): string {
    const value = this.values[name];
    if (value === undefined) throw new ToolArgumentError([argumentIssue(name, 'Field required', 'missing')]);
    if (typeof value !== 'string') {
      throw new ToolArgumentError([argumentIssue(name, 'Input should be a valid string', 'string_type')]);
    }
    if (!TEXT_ARGUMENTS.has(name) && hasNulCharacter(value)) {
      throw new ToolArgumentError([argumentIssue(name, ISSUE.nulChar.msg, ISSUE.nulChar.type)]);
    }
    return value;
  }

  optionalString(name: string): string | undefined {
    return this.values[name] === undefined ? undefined : this.string(name);
  }

  /** A value passed on to the core as it came (the core validates it). */
  raw(name: string): unknown {
    return this.values[name];
  }

  has(name: string): boolean {
    return this.values[name] !== undefined;
  }

  /** Every argument as it came (the core validates them): for a tool whose input is another tool's. */
  all(): Record<string, unknown> {
    return { ...this.values };
  }
}

/**
 * `If-Match` for a tool's `if_match`. Agents often drop the quotes of an ETag they were given; a bare
 * value is quoted, so that it still compares (strongly) with the file's ETag.
 */
export function ifMatchOf(value: string | undefined): { ifMatch: string } | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  const quoted =
    trimmed === '*' || trimmed.startsWith('"') || trimmed.startsWith('W/') ? trimmed : `"${trimmed}"`;
  return { ifMatch: quoted };
}
