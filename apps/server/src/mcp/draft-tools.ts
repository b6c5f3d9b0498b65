import { DRAFT_LIMITS, wireBody } from '@mdstore/core';
import * as v from 'valibot';
import { Draft, DraftDiff, DraftList, DraftOperations } from '../http/api/draft-schemas.js';
import { draftDiffJson, draftJson, draftListJson } from '../views.js';
import { toolOutput } from './answers.js';
import { type McpTool, READ_ONLY, type ToolArguments, writes } from './tool-kit.js';
import { ARG, toolInput } from './tool-schemas.js';

/**
 * The MCP tools of drafts (extensions §13): an agent with a `propose` key proposes changes a person
 * reviews and publishes; `publish_draft` needs `write`. They call the use cases the HTTP routes call and
 * answer with the same JSON shapes.
 */

const described = <S extends v.GenericSchema>(schema: S, description: string) =>
  v.pipe(schema, v.description(description));

const DRAFT_ID = described(
  v.pipe(v.string(), v.uuid()),
  'The draft id (from propose_changes or list_drafts).',
);

/** A query value of the use cases (they take the HTTP query's text). */
const queryText = (args: ToolArguments, name: string): string | undefined => {
  const value = args.raw(name);
  return value === undefined ? undefined : String(value);
};

export const DRAFT_TOOLS: readonly McpTool[] = [
  {
    name: 'propose_changes',
    operation: 'createDraft',
    title: 'Propose changes',
    description:
      'Proposes changes to files without changing them: a draft a person reviews and publishes. Give ' +
      'operations as apply_changeset takes them (put, edit, delete, move; not attach or detach). Without draft_id a new draft ' +
      'is opened with your title (and description); with draft_id the operations are added to that open ' +
      'draft (an edit applies to the draft’s text of the file). Each file records the etag it had when ' +
      'the draft first touched it; publishing merges changes made since, or reports the conflicts.',
    inputSchema: toolInput({
      project_id: ARG.projectId,
      // A draft's operations: a changeset's file operations (no attach or detach).
      operations: DraftOperations.entries.operations,
      title: v.optional(
        described(
          v.pipe(v.string(), v.minLength(1), v.maxLength(DRAFT_LIMITS.titleMaxLength)),
          'The title of a new draft (required without draft_id).',
        ),
      ),
      description: v.optional(v.pipe(v.string(), v.maxLength(DRAFT_LIMITS.descriptionMaxLength))),
      draft_id: v.optional(DRAFT_ID),
    }),
    outputSchema: toolOutput(Draft),
    annotations: writes({ destructive: false, idempotent: false }),
    run: async (context, args) => {
      const projectId = args.string('project_id');
      if (args.has('draft_id')) {
        return draftJson(
          await context.store.drafts.addOperations({
            principal: context.principal,
            projectId,
            draftId: args.string('draft_id'),
            body: wireBody({ operations: args.raw('operations') }),
            signal: context.signal,
          }),
        );
      }
      return draftJson(
        await context.store.drafts.create({
          principal: context.principal,
          projectId,
          body: wireBody({
            title: args.raw('title'),
            operations: args.raw('operations'),
            ...(args.has('description') && { description: args.raw('description') }),
          }),
          signal: context.signal,
        }),
      );
    },
  },
  {
    name: 'list_drafts',
    operation: 'listDrafts',
    title: 'List drafts',
    description:
      'The drafts of a project, newest first: open ones await review and publishing. Give "state" ' +
      '(open, published, closed) to keep one kind; pass "next_cursor" as "cursor" for the next page.',
    inputSchema: toolInput({
      project_id: ARG.projectId,
      state: v.optional(v.picklist(['open', 'published', 'closed'])),
      limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(DRAFT_LIMITS.pageMax))),
      cursor: ARG.cursor,
    }),
    outputSchema: toolOutput(DraftList),
    annotations: READ_ONLY,
    run: async (context, args) =>
      draftListJson(
        await context.store.drafts.list({
          principal: context.principal,
          projectId: args.string('project_id'),
          state: args.optionalString('state'),
          limit: queryText(args, 'limit'),
          cursor: args.optionalString('cursor'),
        }),
      ),
  },
  {
    name: 'read_draft',
    operation: 'diffDraft',
    title: 'Read a draft',
    description:
      'A draft with its files, reviews and the diff of each file from its base ("stale": the live file ' +
      'changed since). Diffs come a page of files at a time: pass "next_cursor" as "cursor".',
    inputSchema: toolInput({ project_id: ARG.projectId, draft_id: DRAFT_ID, cursor: ARG.cursor }),
    outputSchema: toolOutput(v.object({ draft: Draft, diff: DraftDiff })),
    annotations: READ_ONLY,
    run: async (context, args) => {
      const request = {
        principal: context.principal,
        projectId: args.string('project_id'),
        draftId: args.string('draft_id'),
      };
      const draft = await context.store.drafts.get(request);
      const diff = await context.store.drafts.diff({
        ...request,
        cursor: args.optionalString('cursor'),
        signal: context.signal,
      });
      return { draft: draftJson(draft), diff: draftDiffJson(diff) };
    },
  },
  {
    name: 'publish_draft',
    operation: 'publishDraft',
    title: 'Publish a draft',
    description:
      'Applies an open draft to the files as one changeset, all or nothing (needs a write key). Files ' +
      'changed since the draft’s base are merged three ways and listed in "merged"; overlapping changes ' +
      'are an error (409) with the conflicting hunks, and nothing is changed.',
    inputSchema: toolInput({ project_id: ARG.projectId, draft_id: DRAFT_ID }),
    outputSchema: toolOutput(
      v.object({ draft: Draft, changeset_id: v.string(), merged: v.array(v.string()) }),
    ),
    annotations: writes({ destructive: true, idempotent: false }),
    run: async (context, args) => {
      const published = await context.store.drafts.publish({
        principal: context.principal,
        projectId: args.string('project_id'),
        draftId: args.string('draft_id'),
        signal: context.signal,
      });
      return {
        draft: draftJson(published.draft),
        changeset_id: published.changesetId,
        merged: [...published.merged],
      };
    },
  },
];
