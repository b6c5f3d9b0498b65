import type {
  ChangesetResult as CoreChangesetResult,
  FileList as CoreFileList,
  EditResult,
  FileView,
  ProjectView,
  SearchAnswer,
} from '@mdstore/core';
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { ChangeList } from '../http/api/changes-schemas.js';
import { CONVERSION } from '../http/api/json-schema.js';
import {
  Attachment,
  BrokenLinkList,
  ChangesetAttachmentDeleted,
  ChangesetDeleted,
  ChangesetResult,
  File,
  FileContentUpdate,
  FileEdited,
  FileLinks,
  FileList,
  MovedFile,
  Outline,
  Project,
  ProjectList,
  RevisionList,
  SearchAnswer as SearchAnswerSchema,
  SearchResult,
} from '../http/api/schemas.js';
import {
  changesetItemJson,
  editJson,
  fileJson,
  fileListJson,
  projectJson,
  searchAnswerJson,
} from '../views.js';
import type { JsonSchema } from './tool-kit.js';

/**
 * The MCP tools' answers: the HTTP API's answer schemas (`http/api/schemas.ts`) without `bucket_name`
 * and `storage_path`, storage details an agent has no use for, converted to each tool's `outputSchema`
 * with the OpenAPI document's conversion. The functions below return the types of these schemas, so
 * an answer that drifts from its advertised schema does not compile.
 */

const strict = <E extends v.ObjectEntries>(entries: E) => v.strictObject(entries);

const { storage_path: _storagePath, ...fileEntries } = File.entries;
const { bucket_name: _bucketName, ...projectEntries } = Project.entries;

export const ToolFile = strict(fileEntries);
export const ToolProject = strict(projectEntries);
const Etag = File.entries.etag;
const Revision = File.entries.revision;

export const ANSWERS = {
  projectList: strict({ projects: v.array(ToolProject), total_count: ProjectList.entries.total_count }),
  fileList: strict({ ...FileList.entries, files: v.array(ToolFile) }),
  read: strict({
    filename: File.entries.filename,
    content: v.string(),
    etag: Etag,
    revision: Revision,
    lines: v.optional(
      v.pipe(v.string(), v.description('With `lines` or `section`: "first-last/total" lines of the file.')),
    ),
  }),
  outline: Outline,
  file: ToolFile,
  fileUpdate: strict(FileContentUpdate.entries),
  edited: strict({
    ...fileEntries,
    diff: FileEdited.entries.diff,
    merged: FileEdited.entries.merged,
    dry_run: v.pipe(v.boolean(), v.description('true: nothing was changed (the diff shows the edits).')),
  }),
  search: strict({
    ...SearchAnswerSchema.entries,
    results: v.array(strict({ ...SearchResult.entries, file: ToolFile })),
  }),
  deleted: strict({ deleted: v.literal(true), filename: File.entries.filename }),
  revisionList: RevisionList,
  changeList: ChangeList,
  // Extensions §9.
  links: FileLinks,
  moved: strict({ ...fileEntries, rewritten: MovedFile.entries.rewritten }),
  brokenLinks: BrokenLinkList,
  revision: strict({ filename: File.entries.filename, revision: Revision, content: v.string(), etag: Etag }),
  // Extensions §9.
  changeset: strict({
    changeset_id: ChangesetResult.entries.changeset_id,
    files: v.array(
      v.union([
        ToolFile,
        ChangesetDeleted,
        strict(Attachment.entries),
        strict(ChangesetAttachmentDeleted.entries),
      ]),
    ),
    dry_run: v.pipe(v.boolean(), v.description('true: nothing was changed.')),
  }),
} as const;

/** A tool's `outputSchema`: its answer's schema, converted exactly as the OpenAPI document's schemas. */
export function toolOutput(schema: v.GenericSchema): JsonSchema & { type: 'object' } {
  const { $schema: _dialect, ...converted } = toJsonSchema(schema, CONVERSION) as JsonSchema;
  return converted as JsonSchema & { type: 'object' };
}

type Answer<K extends keyof typeof ANSWERS> = v.InferOutput<(typeof ANSWERS)[K]>;

/** A file of the API's answers without its `storage_path`. */
function withoutStoragePath({ storage_path: _, ...file }: v.InferOutput<typeof File>): Answer<'file'> {
  return file;
}

export const fileAnswer = (file: FileView): Answer<'file'> => withoutStoragePath(fileJson(file));

export function projectListAnswer(projects: readonly ProjectView[]): Answer<'projectList'> {
  return {
    projects: projects.map((project) => {
      const { bucket_name: _, ...answer } = projectJson(project);
      return answer;
    }),
    total_count: projects.length,
  };
}

export const fileListAnswer = (list: CoreFileList): Answer<'fileList'> => ({
  ...fileListJson(list),
  files: list.files.map(fileAnswer),
});

export function editAnswer(result: EditResult): Answer<'edited'> {
  const { storage_path: _, ...answer } = editJson(result);
  return { ...answer, dry_run: result.dryRun };
}

export function searchAnswer(answer: SearchAnswer): Answer<'search'> {
  const json = searchAnswerJson(answer);
  return {
    ...json,
    results: json.results.map((result) => ({
      ...result,
      file: withoutStoragePath(result.file),
      // The view's highlights are readonly tuples; the schema's type has mutable ones.
      snippets: result.snippets as Answer<'search'>['results'][number]['snippets'],
    })),
  };
}

export const changesetAnswer = (result: CoreChangesetResult): Answer<'changeset'> => ({
  changeset_id: result.changesetId,
  files: result.files.map((item) => changesetItemJson(item, fileAnswer)),
  dry_run: result.dryRun,
});
