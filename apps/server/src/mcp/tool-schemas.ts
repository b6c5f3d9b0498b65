import {
  CHANGES_LIMITS,
  FILE_LINK_LIMITS,
  HeadingPathSchema,
  HISTORY_LIMITS,
  LINK_LIMITS,
  LIST_LIMITS,
} from '@mdstore/core';
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { CONVERSION } from '../http/api/json-schema.js';
import {
  ChangesetRequest,
  FileEdit,
  MetadataUpdate,
  MoveRequest,
  ProjectIdParam,
  RestoreRequest,
  SearchAllRequest,
} from '../http/api/schemas.js';
import type { JsonSchema } from './tool-kit.js';

/**
 * The MCP tools' arguments as valibot schemas, built from the same schemas as the OpenAPI document
 * (`http/api/schemas.ts`, most of them the core's own) and converted with the same configuration. Only
 * what is the tools' own is written here (`if_match`, `content`, integer paging).
 */

const withoutDialect = <T extends object>({ $schema: _dialect, ...schema }: T & { $schema?: unknown }) =>
  schema;

/** A tool's input schema: its arguments, no others, converted exactly as the OpenAPI document's schemas. */
export function toolInput(entries: v.ObjectEntries): JsonSchema & { type: 'object' } {
  return withoutDialect(toJsonSchema(v.strictObject(entries), CONVERSION)) as JsonSchema & {
    type: 'object';
  };
}

const described = <S extends v.GenericSchema>(schema: S, description: string) =>
  v.pipe(schema, v.description(description));

/** A page size a tool takes: an integer from 1 to `max`, optional. */
const pageLimit = (max: number) =>
  v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(max)));

export const ARG = {
  projectId: described(ProjectIdParam, 'The project id (from list_projects).'),
  filename: described(v.string(), 'The file name, e.g. "notes.md" or "guides/setup.md" (.md or .mdx).'),
  ifMatch: described(
    v.string(),
    'The etag the file had when you read it, exactly as read_file, outline or list_files gave it ' +
      '(quotes included). The change is refused (412) if the file changed since.',
  ),
  // Extensions §13: the tools' side of `?merge_base=` (its rules are the core's, merge-base.ts).
  mergeBase: described(
    v.string(),
    'Instead of if_match: the etag of the version you read and changed. If the file changed since, ' +
      'your change is merged into the current content (answer: merged true); changes that overlap are ' +
      'refused (409 with conflicts, nothing written): read the file again and redo the change.',
  ),
  content: v.string(),
  metadata: MetadataUpdate.entries.metadata,
  headingPath: HeadingPathSchema,
  headingPathHelp:
    'A heading path from an outer heading down, e.g. ["Setup", "Linux"] (the path outline gives names ' +
    'its heading), or one heading text as a string, which must be unique in the file. Heading texts ' +
    'are plain text (no # or markup), compared after collapsing spaces.',
  lines: described(v.pipe(v.string(), v.regex(/^\d+-\d+$/)), '1-based inclusive line range "a-b".'),
  edits: FileEdit.entries.edits,
  dryRun: FileEdit.entries.dry_run,
  revision: RestoreRequest.entries.revision,
  to: MoveRequest.entries.to,
  fileListLimit: pageLimit(LIST_LIMITS.maxLimit),
  revisionListLimit: pageLimit(HISTORY_LIMITS.revisionsPageMax),
  linkPageLimit: pageLimit(LINK_LIMITS.pageMax),
  fileLinkPageLimit: pageLimit(FILE_LINK_LIMITS.pageMax),
  cursor: v.optional(described(v.string(), 'The next_cursor of the previous page.')),
  since: v.optional(
    described(
      v.pipe(v.number(), v.integer(), v.minValue(0)),
      'Changes after this seq: the next_since of your previous call (0 or absent: the oldest kept).',
    ),
  ),
  changesLimit: pageLimit(CHANGES_LIMITS.maxLimit),
  optionalProjectId: v.optional(described(ProjectIdParam, 'Changes of this project only.')),
  search: SearchAllRequest.entries,
  operations: ChangesetRequest.entries.operations,
  message: ChangesetRequest.entries.message,
} as const;

/** The two arguments that name a file. */
export const FILE_ARGS = { project_id: ARG.projectId, filename: ARG.filename };
