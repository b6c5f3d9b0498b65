import { CHANGESET_LIMITS, type ChangesetResult as ChangesetOutcome } from '@mdstore/core';
import { changesetItemJson, fileJson } from '../../views.js';
import { errors, json } from '../api/answers.js';
import { defineRoute } from '../api/route.js';
import { AnyError, ChangesetRequest, ChangesetResult, ValidationError } from '../api/schemas.js';
import { principalOf } from '../auth.js';
import { jsonRequestBody } from '../request-body.js';
import { projectIdOf, type RouteDeps, signalOf } from './context.js';

/**
 * How large a changeset body may be: `MDSTORE_MAX_FILE_BYTES` × 4 of content in all, JSON-escaped (so
 * twice that), plus the JSON limit of other bodies for the rest (names, metadata, edits).
 */
export const changesetBodyLimit = (deps: RouteDeps): number =>
  2 * CHANGESET_LIMITS.contentFactor * deps.store.settings.maxFileBytes + deps.maxJsonBytes;

export const changesetJson = (result: ChangesetOutcome) => ({
  changeset_id: result.changesetId,
  files: result.files.map((item) => changesetItemJson(item, fileJson)),
});

export const applyChangeset = defineRoute(
  {
    method: 'POST',
    path: '/api/projects/:project_id/changesets',
    operationId: 'applyChangeset',
    summary: 'Apply a changeset',
    description:
      'Up to 1000 operations (`put`, `edit`, `delete`, `move`, and for attachments `attach` and ' +
      '`detach`, each with an optional `if_match`) applied in order as one transaction: all of them or ' +
      'none, so a note and its images land together. Each touched file gets one new ' +
      'revision carrying the changeset id and message. The first failing operation decides the ' +
      'answer, its `detail` a list of issues under `["body","operations",i,…]`.',
    tags: ['Changesets'],
    auth: 'apiKey',
    role: 'write',
    body: { contentType: 'application/json', schema: ChangesetRequest },
    answers: {
      200: json('The changeset id and the files after it', ChangesetResult),
      ...errors(400, 403, 422),
      404: json(
        'The project, or (an operation) a file or attachment outside the key, or a `detach` of no attachment',
        AnyError,
      ),
      // The first failing operation's answer: its status, its detail a list of issues naming it.
      409: json(
        'An operation names a taken or missing file, its edits do not apply, or an `attach` names a .md/.mdx path',
        ValidationError,
      ),
      412: json("An operation's if_match does not hold", ValidationError),
      413: json(
        'Content above the size limits (of a file, of an attachment, or of the changeset in all)',
        AnyError,
      ),
      415: json(
        'An operation names a file that is not .md or .mdx, or attaches bytes that are not of their content_type',
        ValidationError,
      ),
      428: json('The project requires if_match for writes to existing files', ValidationError),
    },
  },
  (deps) => async (req, res) => {
    const result = await deps.store.changesets.applyRequest({
      principal: principalOf(res),
      projectId: projectIdOf(req),
      body: jsonRequestBody(req, res, changesetBodyLimit(deps), {
        parse: deps.jsonParser,
        signal: signalOf(res),
      }),
      signal: signalOf(res),
    });
    res.status(200).json(changesetJson(result));
  },
);

export const changesetRoutes = [applyChangeset];
