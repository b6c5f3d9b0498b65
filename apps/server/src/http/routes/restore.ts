import { RESTORE_LIMITS } from '@mdstore/core';
import { projectRestoreJson } from '../../views.js';
import { errors, json } from '../api/answers.js';
import { defineRoute } from '../api/route.js';
import { AnyError, ProjectRestoreRequest, ProjectRestoreResult, ValidationError } from '../api/schemas.js';
import { principalOf } from '../auth.js';
import { jsonRequestBody } from '../request-body.js';
import { projectIdOf, signalOf } from './context.js';

/**
 * A project as it was (extensions §16): its files brought back to a time, from revisions and the trash,
 * as one changeset. `admin`: it may rewrite and delete every file of the project.
 */
export const restoreProject = defineRoute(
  {
    method: 'POST',
    path: '/api/projects/:project_id/restore',
    operationId: 'restoreProject',
    folderKeys: 'refused',
    summary: 'Restore a project as of a time',
    description:
      'Brings every file back to what it was at `as_of`, from the kept revisions of the files and of the trash: ' +
      'files created since are deleted (into the trash when the project keeps one), files deleted since come back from the trash ' +
      '(as new files with their content and metadata of then), the others get back their content, metadata and name of then. ' +
      'Applied as ONE changeset (one transaction, one revision and one change event per touched file, the changeset id on each). ' +
      'Files whose kept history does not reach `as_of` are reported `unrecoverable` and left as they are. ' +
      `\`dry_run\`: the same answer, nothing written. Each list holds at most ${RESTORE_LIMITS.maxListed} entries (\`truncated\`), the counts are exact.`,
    tags: ['Projects'],
    auth: 'apiKey',
    role: 'admin',
    body: { contentType: 'application/json', schema: ProjectRestoreRequest },
    answers: {
      200: json('What the restore changed (or, in a dry run, would change)', ProjectRestoreResult),
      ...errors(400, 403, 404, 422),
      409: json('The files kept changing while the restore was applied; send it again', ValidationError),
      413: json(
        `More than ${RESTORE_LIMITS.maxFiles} files and trash items, ${RESTORE_LIMITS.maxRevisionsRead} revisions to read, or ${RESTORE_LIMITS.maxChanges} files to change (a dry run still answers); or the project's storage limit`,
        AnyError,
      ),
    },
  },
  (deps) => async (req, res) => {
    const result = await deps.store.restore.asOf({
      principal: principalOf(res),
      projectId: projectIdOf(req),
      body: jsonRequestBody(req, res, deps.maxJsonBytes, { parse: deps.jsonParser, signal: signalOf(res) }),
      signal: signalOf(res),
    });
    res.status(200).json(projectRestoreJson(result));
  },
);

export const restoreRoutes = [restoreProject];
