import { MemoryCommandSchema, memoryPathFilename, wireBody } from '@mdstore/core';
import * as v from 'valibot';
import { MemoryResult } from '../http/api/schemas.js';
import { toolOutput } from './answers.js';
import { type McpTool, writes } from './tool-kit.js';
import { ARG, toolInput } from './tool-schemas.js';

/**
 * Extensions §14: the `memory` tool takes the input of Anthropic's memory tool (`command` and that
 * command's fields) and a `project_id`, and answers as `POST /api/projects/{id}/memory`: the tool's
 * text in `result`, `is_error` for one of its errors. The input schema lists every command's fields as
 * optional (an MCP input schema is one object); the core judges the command as for HTTP (422).
 */

const optionalFieldsOf = () => {
  const fields: v.ObjectEntries = {};
  for (const option of MemoryCommandSchema.options) {
    for (const [name, schema] of Object.entries(option.entries)) {
      if (name === 'command') continue;
      fields[name] ??= schema.type === 'optional' ? schema : v.optional(schema);
    }
  }
  return fields;
};

const COMMANDS = MemoryCommandSchema.options.map((option) => option.entries.command.literal);

export const memoryTool: McpTool = {
  name: 'memory',
  operation: 'runMemoryCommand',
  title: 'Memory',
  description:
    'Your memory between conversations, kept in the project under /memories (the folder memories/): ' +
    'the commands of the memory tool. view (a folder lists 2 levels; a file shows numbered lines, ' +
    'view_range [start, end]), create (path, file_text), str_replace (path, old_str unique in the ' +
    'file, new_str), insert (path, insert_line, insert_text), delete (path), rename (old_path, ' +
    'new_path). Paths start with /memories. is_error true: the result says what was wrong; nothing ' +
    'was changed. view needs a read key, the other commands a write key.',
  inputSchema: toolInput({
    project_id: ARG.projectId,
    command: v.picklist(COMMANDS),
    ...optionalFieldsOf(),
  }),
  outputSchema: toolOutput(MemoryResult),
  annotations: writes({ destructive: true, idempotent: false }),
  run: async (context, args) => {
    const { project_id: _project, ...command } = args.all();
    const answer = await context.store.memory.run({
      principal: context.principal,
      projectId: args.string('project_id'),
      body: wireBody(command),
      signal: context.signal,
    });
    return { result: answer.result, is_error: answer.isError };
  },
  audited: (args, answer) => {
    const path = args.raw('command') === 'rename' ? args.raw('old_path') : args.raw('path');
    return {
      change: args.raw('command') !== 'view' && answer.is_error === false,
      filename: typeof path === 'string' ? memoryPathFilename(path) : null,
    };
  },
};
