import * as v from 'valibot';
import { InvalidInputError } from '../../errors.js';
import { toValidationIssues } from '../../validation/issues.js';

/**
 * The body of `POST /api/projects/{id}/memory` (extensions §14): the input of one call of Anthropic's
 * memory tool (`memory_20250818`), as its `BetaMemoryTool20250818Command` types give it. Fields the
 * tool does not define are ignored (a model may add some); a missing or mistyped field is 422.
 */

const Path = v.pipe(v.string(), v.description('A path under `/memories`.'));

export const MemoryCommandSchema = v.variant('command', [
  v.object({
    command: v.literal('view'),
    path: Path,
    view_range: v.optional(
      v.pipe(
        v.array(v.pipe(v.number(), v.integer())),
        v.description('`[start, end]`, 1-based and inclusive; `end` -1 is the last line.'),
      ),
    ),
  }),
  v.object({ command: v.literal('create'), path: Path, file_text: v.string() }),
  v.object({ command: v.literal('str_replace'), path: Path, old_str: v.string(), new_str: v.string() }),
  v.object({
    command: v.literal('insert'),
    path: Path,
    insert_line: v.pipe(v.number(), v.integer()),
    insert_text: v.string(),
  }),
  v.object({ command: v.literal('delete'), path: Path }),
  v.object({ command: v.literal('rename'), old_path: Path, new_path: Path }),
]);

export type MemoryCommandInput = v.InferInput<typeof MemoryCommandSchema>;
export type MemoryCommand = v.InferOutput<typeof MemoryCommandSchema>;

/** The command of a body, or 422 with one issue per problem found. */
export function parseMemoryCommand(body: unknown): MemoryCommand {
  const parsed = v.safeParse(MemoryCommandSchema, body);
  if (!parsed.success) throw new InvalidInputError(toValidationIssues(parsed.issues, ['body']));
  return parsed.output;
}
