import { type ByteStream, PreconditionRequiredError, wireBody } from '@mdstore/core';
import * as v from 'valibot';
import { MoveRequest } from '../http/api/schemas.js';
import { eventBody, fileUpdateJson, outlineJson, revisionListJson } from '../views.js';
import {
  ANSWERS,
  changesetAnswer,
  editAnswer,
  fileAnswer,
  fileListAnswer,
  projectListAnswer,
  searchAnswer,
  toolOutput,
} from './answers.js';
import { ATTACHMENT_TOOLS } from './attachment-tools.js';
import { DRAFT_TOOLS } from './draft-tools.js';
import { memoryTool } from './memory-tool.js';
import {
  ifMatchOf,
  type McpTool,
  READ_ONLY,
  ToolArgumentError,
  type ToolArguments,
  type ToolContext,
  writes,
} from './tool-kit.js';
import { ARG, FILE_ARGS, toolInput } from './tool-schemas.js';

/**
 * The MCP tools of extensions §4 and §5, one entry each. They call the use cases the HTTP routes call, with
 * the same JSON shapes in their answers. Reads return `etag`; every tool that changes an existing file
 * takes `if_match` and obeys the project's `require_if_match`; `write_file`, `delete_file`,
 * `restore_revision` and `move_file` always require it, since they replace, remove or rename the whole
 * file at once.
 */

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

async function textOf(content: ByteStream): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of content) chunks.push(chunk);
  return decoder.decode(Buffer.concat(chunks));
}

async function* bytesOf(text: string): ByteStream {
  yield new TextEncoder().encode(text);
}

const fileArgs = (context: ToolContext, args: ToolArguments) => ({
  principal: context.principal,
  projectId: args.string('project_id'),
  filename: args.string('filename'),
});

/** `if_match` where the tool insists on it: without one, the API's own 428. */
function requiredIfMatch(args: ToolArguments) {
  const conditions = ifMatchOf(args.optionalString('if_match'));
  if (!conditions) throw new PreconditionRequiredError();
  return conditions;
}

const FILE = FILE_ARGS;

export const TOOLS: readonly McpTool[] = [
  {
    name: 'list_projects',
    operation: 'listProjects',
    title: 'List projects',
    description: 'The projects of your account, with their ids, file counts and settings.',
    inputSchema: toolInput({}),
    outputSchema: toolOutput(ANSWERS.projectList),
    annotations: READ_ONLY,
    run: async (context) => {
      return projectListAnswer(await context.store.projects.list({ principal: context.principal }));
    },
  },
  {
    name: 'list_files',
    operation: 'listFiles',
    title: 'List files',
    description:
      'The files of a project (by filename) with their size, metadata, etag and revision. Give "prefix" ' +
      '(e.g. "guides/") for one folder, and "limit" to get one page: pass the answer\'s "next_cursor" as ' +
      '"cursor" (with the same prefix) for the next page, until it is null.',
    inputSchema: toolInput({
      project_id: ARG.projectId,
      prefix: v.optional(v.pipe(v.string(), v.description('Only files whose filename starts with it.'))),
      limit: ARG.fileListLimit,
      cursor: ARG.cursor,
    }),
    outputSchema: toolOutput(ANSWERS.fileList),
    annotations: READ_ONLY,
    run: async (context, args) => {
      const list = await context.store.files.list({
        principal: context.principal,
        projectId: args.string('project_id'),
        params: {
          ...(args.has('prefix') && { prefix: args.string('prefix') }),
          ...(args.has('cursor') && { cursor: args.string('cursor') }),
          ...(args.has('limit') && { limit: args.raw('limit') as number }),
        },
      });
      return fileListAnswer(list);
    },
  },
  {
    name: 'read_file',
    operation: 'downloadFile',
    title: 'Read a file',
    description:
      'The content of a file, or only some lines ("lines": "10-20") or one section ("section": a heading ' +
      'path), with its etag and revision. Keep the etag: pass it as if_match when you change the file.',
    inputSchema: toolInput({
      ...FILE,
      lines: v.optional(ARG.lines),
      section: v.optional(
        v.pipe(ARG.headingPath, v.description(`${ARG.headingPathHelp} Returns that section.`)),
      ),
    }),
    outputSchema: toolOutput(ANSWERS.read),
    annotations: READ_ONLY,
    run: async (context, args) => {
      const target = fileArgs(context, args);
      const lines = args.optionalString('lines');
      const rawSection = args.raw('section');
      if (lines === undefined && rawSection === undefined) {
        const read = await context.store.files.download({ ...target, signal: context.signal });
        const content = await textOf(read.content);
        return { filename: read.file.filename, content, etag: read.file.etag, revision: read.file.revision };
      }
      const section = rawSection === undefined ? undefined : sectionPath(rawSection);
      const part = await context.store.files.readPart({ ...target, lines, section, signal: context.signal });
      if (part.kind !== 'part') throw new Error('unreachable: an unconditional read');
      const { first, last, total } = part.lines;
      return {
        filename: part.file.filename,
        content: part.text,
        etag: part.file.etag,
        revision: part.file.revision,
        lines: `${first}-${last}/${total}`,
      };
    },
  },
  {
    name: 'outline',
    operation: 'getOutline',
    title: 'Outline of a file',
    description:
      'The headings of a file (level, text, line, path) and its links, with its etag. Use a heading path ' +
      'from here as the section of read_file or edit_file.',
    inputSchema: toolInput(FILE),
    outputSchema: toolOutput(ANSWERS.outline),
    annotations: READ_ONLY,
    run: async (context, args) =>
      outlineJson(await context.store.files.outline({ ...fileArgs(context, args), signal: context.signal })),
  },
  {
    name: 'links',
    operation: 'getFileLinks',
    title: 'Links of a file',
    description:
      'The links of a file (Markdown links to .md/.mdx files and [[wiki links]]): outgoing ones with the ' +
      'file each resolves to (target, resolved, anchor_found), and incoming ones (the files that link ' +
      'to it). Check incoming before renaming or deleting a file. Paged: at most limit links (outgoing ' +
      'first, then incoming); continue with next_cursor until it is null.',
    inputSchema: toolInput({ ...FILE, limit: ARG.fileLinkPageLimit, cursor: ARG.cursor }),
    outputSchema: toolOutput(ANSWERS.links),
    annotations: READ_ONLY,
    run: async (context, args) => {
      const limit = args.raw('limit');
      const page = await context.store.files.links({
        ...fileArgs(context, args),
        limit: limit === undefined ? undefined : String(limit),
        cursor: args.optionalString('cursor'),
      });
      return { outgoing: page.outgoing, incoming: page.incoming, next_cursor: page.nextCursor };
    },
  },
  {
    name: 'broken_links',
    operation: 'listBrokenLinks',
    title: 'Broken links of a project',
    description:
      'Links that resolve to no file (missing), to several (ambiguous wiki link) or to a file without ' +
      'the heading of their #anchor (anchor), in source then line order. A page may hold fewer than ' +
      'limit; continue with next_cursor until it is null.',
    inputSchema: toolInput({ project_id: ARG.projectId, limit: ARG.linkPageLimit, cursor: ARG.cursor }),
    outputSchema: toolOutput(ANSWERS.brokenLinks),
    annotations: READ_ONLY,
    run: async (context, args) => {
      const limit = args.raw('limit');
      const page = await context.store.links.broken({
        principal: context.principal,
        projectId: args.string('project_id'),
        limit: limit === undefined ? undefined : String(limit),
        cursor: args.optionalString('cursor'),
      });
      return { links: page.links, next_cursor: page.nextCursor };
    },
  },
  {
    name: 'create_file',
    operation: 'uploadFile',
    title: 'Create a file',
    description: 'Creates a new file; refuses (409) a name that exists already. Use edit_file to change one.',
    inputSchema: toolInput({ ...FILE, content: ARG.content, metadata: v.optional(ARG.metadata) }),
    outputSchema: toolOutput(ANSWERS.file),
    annotations: writes({ destructive: false, idempotent: false }),
    run: async (context, args) => {
      const metadata = args.raw('metadata');
      const file = await context.store.files.upload({
        ...fileArgs(context, args),
        content: bytesOf(args.string('content')),
        ...(metadata !== undefined && metadata !== null && { metadata: JSON.stringify(metadata) }),
        signal: context.signal,
      });
      return fileAnswer(file);
    },
  },
  {
    name: 'edit_file',
    operation: 'editFile',
    title: 'Edit a file',
    description:
      'Applies precise edits in order, all or nothing, as one new revision: replace exact text (it must ' +
      'occur exactly `count` times), append/prepend to the file or a section, replace a section body, ' +
      'insert before a line. Everything else in the file stays byte for byte. Returns the new etag and a ' +
      'unified diff; dry_run shows the diff without changing anything. Pass if_match with the etag you ' +
      'read so that the edit is refused if the file changed meanwhile, or merge_base with it to have ' +
      'the edits merged into what changed meanwhile.',
    inputSchema: toolInput({
      ...FILE,
      edits: ARG.edits,
      dry_run: ARG.dryRun,
      if_match: v.optional(ARG.ifMatch),
      merge_base: v.optional(ARG.mergeBase),
    }),
    outputSchema: toolOutput(ANSWERS.edited),
    annotations: writes({ destructive: true, idempotent: false }),
    run: async (context, args) => {
      const body = { edits: args.raw('edits'), ...(args.has('dry_run') && { dry_run: args.raw('dry_run') }) };
      const result = await context.store.files.edit({
        ...fileArgs(context, args),
        body: wireBody(body),
        conditions: ifMatchOf(args.optionalString('if_match')),
        mergeBase: args.optionalString('merge_base'),
        signal: context.signal,
      });
      return editAnswer(result);
    },
  },
  {
    name: 'write_file',
    operation: 'updateFileContent',
    title: 'Replace a file',
    description:
      'Replaces the whole content of an existing file (metadata kept). Requires if_match (the etag of the ' +
      'version you read) or merge_base (that etag, to have your version merged into what changed ' +
      'meanwhile). Prefer edit_file for changes to part of a file.',
    inputSchema: toolInput({
      ...FILE,
      content: ARG.content,
      if_match: v.optional(ARG.ifMatch),
      merge_base: v.optional(ARG.mergeBase),
    }),
    outputSchema: toolOutput(ANSWERS.fileUpdate),
    annotations: writes({ destructive: true, idempotent: true }),
    run: async (context, args) => {
      const target = fileArgs(context, args);
      const content = args.string('content');
      const file = await context.store.files.updateContent({
        ...target,
        content: bytesOf(content),
        ...(args.has('merge_base')
          ? { conditions: ifMatchOf(args.optionalString('if_match')), mergeBase: args.string('merge_base') }
          : { conditions: requiredIfMatch(args) }),
        signal: context.signal,
      });
      return { ...fileUpdateJson(file), ...(file.merged && { merged: true as const }) };
    },
  },
  {
    name: 'set_metadata',
    operation: 'updateFileMetadata',
    title: 'Set metadata',
    description: "Replaces a file's metadata object (null clears it). Takes if_match.",
    inputSchema: toolInput({ ...FILE, metadata: ARG.metadata, if_match: v.optional(ARG.ifMatch) }),
    outputSchema: toolOutput(ANSWERS.fileUpdate),
    annotations: writes({ destructive: true, idempotent: true }),
    run: async (context, args) => {
      const file = await context.store.files.updateMetadata({
        ...fileArgs(context, args),
        body: wireBody({ metadata: args.raw('metadata') }),
        conditions: ifMatchOf(args.optionalString('if_match')),
      });
      return fileUpdateJson(file);
    },
  },
  {
    name: 'search',
    operation: 'searchProject',
    title: 'Search files',
    description:
      'Finds files by words (all must occur; "a phrase", -exclude, prefix*, a OR b) in filename, content, ' +
      'metadata and front matter, and/or a filter ({"field": "metadata.tags", "op": "contains", "value": ' +
      '"api"}, with and/or/not). Without project_id it searches every project of your account (or those ' +
      'of project_ids). Results come best first with snippets; pass next_cursor as cursor for more. ' +
      'mode "semantic" finds by meaning (embedded sections) and "hybrid" fuses meaning and words (needs ' +
      'embeddings on the server); their hits add text_rank, vector_rank, heading and snippet.',
    inputSchema: toolInput({ project_id: v.optional(ARG.projectId), ...ARG.search }),
    outputSchema: toolOutput(ANSWERS.search),
    annotations: READ_ONLY,
    run: async (context, args) => {
      const body: Record<string, unknown> = {};
      for (const name of ['query', 'filter', 'sort', 'order', 'limit', 'cursor', 'project_ids', 'mode'])
        if (args.has(name)) body[name] = args.raw(name);
      const projectId = args.optionalString('project_id');
      const answer = await context.store.files.search({
        principal: context.principal,
        ...(projectId !== undefined && { projectId }),
        body,
      });
      return searchAnswer(answer);
    },
  },
  {
    name: 'delete_file',
    operation: 'deleteFile',
    title: 'Delete a file',
    description:
      'Deletes a file (into the project trash when its trash_retention_days is above 0). Requires if_match: the etag of the version you mean to delete.',
    inputSchema: toolInput({ ...FILE, if_match: ARG.ifMatch }),
    outputSchema: toolOutput(ANSWERS.deleted),
    annotations: writes({ destructive: true, idempotent: true }),
    run: async (context, args) => {
      const target = fileArgs(context, args);
      await context.store.files.delete({ ...target, conditions: requiredIfMatch(args) });
      return { deleted: true, filename: target.filename };
    },
  },
  // Extensions §5.
  {
    name: 'list_revisions',
    operation: 'listRevisions',
    title: 'List revisions',
    description:
      'The kept revisions of a file, newest first: revision, etag, size, sha256, metadata, change ' +
      '(created, content, metadata, edit, restore, move, copy) and date. Pages with limit and next_cursor.',
    inputSchema: toolInput({ ...FILE, limit: ARG.revisionListLimit, cursor: ARG.cursor }),
    outputSchema: toolOutput(ANSWERS.revisionList),
    annotations: READ_ONLY,
    run: async (context, args) => {
      const limit = args.raw('limit');
      const list = await context.store.files.listRevisions({
        ...fileArgs(context, args),
        limit: limit === undefined ? undefined : String(limit),
        cursor: args.optionalString('cursor'),
      });
      return revisionListJson(list);
    },
  },
  {
    name: 'read_revision',
    operation: 'downloadRevision',
    title: 'Read a revision',
    description: 'The content of one kept revision of a file (see list_revisions), with its etag.',
    inputSchema: toolInput({ ...FILE, revision: ARG.revision }),
    outputSchema: toolOutput(ANSWERS.revision),
    annotations: READ_ONLY,
    run: async (context, args) => {
      const read = await context.store.files.readRevision({
        ...fileArgs(context, args),
        revision: String(args.raw('revision') ?? ''),
        signal: context.signal,
      });
      if (read.kind !== 'content' || read.content === null)
        throw new Error('unreachable: an unconditional read');
      const content = await textOf(read.content);
      return { filename: read.file.filename, revision: read.file.revision, content, etag: read.file.etag };
    },
  },
  {
    name: 'restore_revision',
    operation: 'restoreRevision',
    title: 'Restore a revision',
    description:
      'Makes the content and metadata of a kept revision the current ones, as a new revision (nothing ' +
      'is lost: the replaced version stays in the history). Requires if_match: the current etag.',
    inputSchema: toolInput({ ...FILE, revision: ARG.revision, if_match: ARG.ifMatch }),
    outputSchema: toolOutput(ANSWERS.file),
    annotations: writes({ destructive: true, idempotent: false }),
    run: async (context, args) => {
      const file = await context.store.files.restore({
        ...fileArgs(context, args),
        body: wireBody({ revision: args.raw('revision') }),
        conditions: requiredIfMatch(args),
      });
      return fileAnswer(file);
    },
  },
  {
    name: 'move_file',
    operation: 'moveFile',
    title: 'Move or rename a file',
    description:
      'Gives a file a new name (folders included); content, metadata and history go with it. Refuses ' +
      '(409) a name that exists. Requires if_match: the current etag. With rewrite_links: true, every ' +
      'link to it in other files (and its own relative links) is rewritten in the same change; the ' +
      'answer lists them in rewritten.',
    inputSchema: toolInput({
      ...FILE,
      to: ARG.to,
      if_match: ARG.ifMatch,
      rewrite_links: MoveRequest.entries.rewrite_links,
    }),
    outputSchema: toolOutput(ANSWERS.moved),
    annotations: writes({ destructive: true, idempotent: false }),
    run: async (context, args) => {
      const rewrite = args.raw('rewrite_links');
      const file = await context.store.files.move({
        ...fileArgs(context, args),
        body: wireBody({ to: args.raw('to'), ...(rewrite !== undefined && { rewrite_links: rewrite }) }),
        conditions: requiredIfMatch(args),
      });
      return { ...fileAnswer(file), ...(file.rewritten && { rewritten: [...file.rewritten] }) };
    },
  },
  // Extensions §7.
  {
    name: 'recent_changes',
    operation: 'listChanges',
    title: 'Recent changes',
    description:
      'What changed in your projects, oldest first: files created, updated, moved (from), deleted or ' +
      "restored, and projects created, updated or deleted, each with a seq. Pass the answer's next_since " +
      'as since to get only what changed after; project_id keeps one project.',
    inputSchema: toolInput({ since: ARG.since, limit: ARG.changesLimit, project_id: ARG.optionalProjectId }),
    outputSchema: toolOutput(ANSWERS.changeList),
    annotations: READ_ONLY,
    run: async (context, args) => {
      const text = (name: string) => {
        const value = args.raw(name);
        return value === undefined ? undefined : String(value);
      };
      const page = await context.store.changes.list({
        principal: context.principal,
        params: { since: text('since'), limit: text('limit'), project_id: args.optionalString('project_id') },
      });
      return { changes: page.changes.map(eventBody), next_since: page.nextSince };
    },
  },
  // Extensions §9.
  {
    name: 'apply_changeset',
    operation: 'applyChangeset',
    title: 'Apply a changeset',
    description:
      'Changes many files at once, all or nothing: operations (put: create or replace a file with ' +
      'content and optional metadata; edit: the edits of edit_file; delete; move: rename "filename" to ' +
      '"to"; attach: create or replace the attachment at "path" from content_base64 and content_type; ' +
      'detach: delete the attachment at "path") applied in order, each seeing the earlier ones, so a ' +
      'note and its images land together. Give each operation on an existing file ' +
      'if_match (its etag, or "*": it must exist; null: it must not). One new revision per file, with ' +
      'your message. An error names the failing operation (loc ["body","operations",i,…]); nothing ' +
      'was changed then. Use dry_run to check first. Use it to restructure a folder in one step.',
    inputSchema: toolInput({
      project_id: ARG.projectId,
      operations: ARG.operations,
      message: ARG.message,
      dry_run: ARG.dryRun,
    }),
    outputSchema: toolOutput(ANSWERS.changeset),
    annotations: writes({ destructive: true, idempotent: false }),
    run: async (context, args) => {
      const result = await context.store.changesets.applyRequest({
        principal: context.principal,
        projectId: args.string('project_id'),
        body: wireBody({
          operations: args.raw('operations'),
          ...(args.has('message') && { message: args.raw('message') }),
          ...(args.has('dry_run') && { dry_run: args.raw('dry_run') }),
        }),
        signal: context.signal,
      });
      return changesetAnswer(result);
    },
  },
  // Extensions §14.
  memoryTool,
  // Extensions §13.
  ...DRAFT_TOOLS,
  // Extensions §12.
  ...ATTACHMENT_TOOLS,
];

/**
 * A `section` argument: one heading text (unique in the file), or a path of them from the top (the
 * core judges what they match; markdown/sections.ts).
 */
function sectionPath(value: unknown): string | string[] {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string'))
    return value;
  throw new ToolArgumentError([
    {
      loc: ['arguments', 'section'],
      msg: 'Value error, section must be a heading text or a non-empty array of heading texts',
      type: 'value_error',
    },
  ]);
}
