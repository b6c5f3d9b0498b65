import type { MemoryCommandResult } from '@mdstore/core';
import { MEMORY_LIMITS } from '@mdstore/core';
import type { Response } from 'express';
import { errors, json } from '../api/answers.js';
import { defineRoute } from '../api/route.js';
import { MemoryCommandRequest, MemoryResult } from '../api/schemas.js';
import { auditChange, auditFilename } from '../audit.js';
import { principalOf } from '../auth.js';
import { jsonRequestBody } from '../request-body.js';
import { projectIdOf, signalOf } from './context.js';

/**
 * Extensions §14: one command of Anthropic's memory tool on the project's folder `memories/`. The
 * route asks for `read` (what `view` needs); the core's access rule asks for `write` when the command
 * changes files, so the role depends on the body, checked once, in the use case.
 */
export const memoryJson = (result: MemoryCommandResult) => ({
  result: result.result,
  is_error: result.isError,
});

/** A command that changed files is audited as a change, with the file it named first. */
function audit(res: Response, result: MemoryCommandResult): void {
  if (!result.writes || result.isError) return;
  auditChange(res);
  if (result.filename !== null) auditFilename(res, result.filename);
}

export const runMemoryCommand = defineRoute(
  {
    method: 'POST',
    path: '/api/projects/:project_id/memory',
    operationId: 'runMemoryCommand',
    summary: 'Run a memory tool command',
    description:
      "One command of Anthropic's memory tool (`memory_20250818`: `view`, `create`, `str_replace`, " +
      "`insert`, `delete`, `rename`) on the files under `memories/`; the body is the tool call's input. " +
      'The answer holds the text the tool returns, its errors included (`is_error: true`). `view` ' +
      'needs a `read` key, every other command a `write` key (else 403). Each change is one revision.',
    tags: ['Memory'],
    auth: 'apiKey',
    role: 'read',
    body: { contentType: 'application/json', schema: MemoryCommandRequest },
    answers: {
      200: json("The tool's result text (a success or one of its errors)", MemoryResult),
      ...errors(400, 403, 404, 413, 415, 422),
    },
  },
  (deps) => async (req, res) => {
    const result = await deps.store.memory.run({
      principal: principalOf(res),
      projectId: projectIdOf(req),
      body: jsonRequestBody(req, res, Math.max(deps.maxJsonBytes, MEMORY_LIMITS.maxBodyBytes), {
        parse: deps.jsonParser,
        signal: signalOf(res),
      }),
      signal: signalOf(res),
    });
    audit(res, result);
    res.status(200).json(memoryJson(result));
  },
);

export const memoryRoutes = [runMemoryCommand];
