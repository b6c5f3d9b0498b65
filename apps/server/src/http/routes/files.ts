import { ContentTooLargeError, deferredBody, type ExpectedDigest, parseDigestField } from '@mdstore/core';
import type { Request } from 'express';
import * as v from 'valibot';
import { fileJson, fileListJson, fileUpdateJson } from '../../views.js';
import { errors, FILE_VALIDATORS, json } from '../api/answers.js';
import { FILE_LIST_QUERY, MERGE_BASE_QUERY } from '../api/parameters.js';
import { defineRoute, type RequestHeader } from '../api/route.js';
import {
  File,
  FileContentUpdate,
  FileList,
  FileReferenced,
  FileUpdate,
  MergeConflicts,
  MetadataUpdate,
  UploadForm,
} from '../api/schemas.js';
import { auditFilename } from '../audit.js';
import { principalOf } from '../auth.js';
import { HttpError } from '../errors.js';
import { singleQueryParams } from '../query.js';
import { jsonRequestBody, markdownRequestBody, uploadRequestBody } from '../request-body.js';
import { conditionsOf, headerValue, setFileValidators } from '../validators.js';
import { filenameOf, projectIdOf, signalOf } from './context.js';

/**
 * `Content-Digest` and `Repr-Digest` (RFC 9530) of a content update: the SHA-256 each declares, for the
 * core to check against what it receives. A malformed field is refused from the headers alone (400).
 */
function declaredDigests(req: Request): ExpectedDigest[] {
  const digests: ExpectedDigest[] = [];
  for (const name of ['content-digest', 'repr-digest'] as const) {
    const field = parseDigestField(headerValue(req.headers[name]));
    if (field.kind === 'malformed') {
      throw new HttpError(400, [
        {
          loc: ['header', name],
          msg: 'Value error, not a valid digest field (RFC 9530)',
          type: 'value_error',
        },
      ]);
    }
    if (field.kind === 'sha-256') digests.push({ hex: field.hex, loc: ['header', name] });
  }
  return digests;
}

/** The query parameters of List Files (extensions §3); others are ignored. */
export const FILE_LIST_PARAMS = ['limit', 'cursor', 'sort', 'order', 'prefix', 'delimiter'] as const;

/** The file routes of the interface, with the ETags, preconditions, ranges and digests of extensions §2. */

const FILES = '/api/projects/:project_id/files';
const FILE = '/api/projects/:project_id/files/:filename';
const WRITE_CONDITIONS: readonly RequestHeader[] = ['If-Match', 'If-None-Match', 'If-Unmodified-Since'];

export const listFiles = defineRoute(
  {
    method: 'GET',
    path: FILES,
    operationId: 'listFiles',
    summary: 'List files',
    description: 'Every file of the project, ordered by filename (code points).',
    tags: ['Files'],
    auth: 'apiKey',
    role: 'read',
    query: FILE_LIST_QUERY,
    answers: { 200: json('The files of the project', FileList), ...errors(403, 404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      const list = await store.files.list({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        params: singleQueryParams(req, FILE_LIST_PARAMS),
      });
      res.status(200).json(fileListJson(list));
    },
);

export const uploadFile = defineRoute(
  {
    method: 'POST',
    path: FILES,
    operationId: 'uploadFile',
    summary: 'Upload a file',
    description:
      'A multipart form with the `file` part (its filename is the file name, `.md` or `.mdx`), an optional ' +
      '`metadata` field (a JSON object as text) and an optional `sha256` field (lower-case hex of the ' +
      'content, checked by the server).',
    tags: ['Files'],
    auth: 'apiKey',
    role: 'write',
    body: { contentType: 'multipart/form-data', schema: UploadForm },
    answers: {
      201: json('Created', File, FILE_VALIDATORS),
      ...errors(400, 403, 404, 409, 413, 415, 422),
    },
  },
  (deps) => {
    const { store } = deps;
    const maxFileBytes = store.settings.maxFileBytes;
    const tooLarge = () => new ContentTooLargeError(maxFileBytes);
    return async (req, res) => {
      const signal = signalOf(res);
      const file = await store.files.upload({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        form: uploadRequestBody(req, res, { limits: deps.multipartLimits, maxFileBytes, tooLarge, signal }),
        signal,
      });
      setFileValidators(res, file);
      auditFilename(res, file.filename);
      res.status(201).json(fileJson(file));
    };
  },
);

export const updateFileMetadata = defineRoute(
  {
    method: 'PUT',
    path: FILE,
    operationId: 'updateFileMetadata',
    summary: 'Replace the metadata of a file',
    tags: ['Files'],
    auth: 'apiKey',
    role: 'write',
    headers: WRITE_CONDITIONS,
    body: { contentType: 'application/json', schema: MetadataUpdate },
    answers: {
      200: json('The file as updated', FileUpdate, FILE_VALIDATORS),
      ...errors(400, 403, 404, 412, 413, 415, 422, 428),
    },
  },
  (deps) => async (req, res) => {
    const file = await deps.store.files.updateMetadata({
      principal: principalOf(res),
      projectId: projectIdOf(req),
      filename: filenameOf(req),
      body: jsonRequestBody(req, res, deps.maxJsonBytes),
      conditions: conditionsOf(req),
    });
    setFileValidators(res, file);
    res.status(200).json(fileUpdateJson(file));
  },
);

export const deleteFile = defineRoute(
  {
    method: 'DELETE',
    path: FILE,
    operationId: 'deleteFile',
    summary: 'Delete a file',
    tags: ['Files'],
    auth: 'apiKey',
    role: 'write',
    headers: WRITE_CONDITIONS,
    query: {
      if_unreferenced: {
        schema: v.boolean(),
        description:
          'Extensions §9: `true` refuses to delete a file other files link to: 409 `{"detail": "File is referenced", "referenced_by": [...]}`.',
      },
    },
    answers: {
      204: { description: 'Deleted (no body)' },
      409: json('Other files link to it (`if_unreferenced=true`)', FileReferenced),
      ...errors(403, 404, 412, 422, 428),
    },
  },
  ({ store }) =>
    async (req, res) => {
      const query = singleQueryParams(req, ['if_unreferenced']);
      await store.files.delete({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        filename: filenameOf(req),
        conditions: conditionsOf(req),
        ifUnreferenced: query.if_unreferenced,
      });
      res.status(204).end();
    },
);

export const updateFileContent = defineRoute(
  {
    method: 'PUT',
    path: `${FILE}/content`,
    operationId: 'updateFileContent',
    summary: 'Replace the content of a file',
    description: 'The metadata is kept. `Content-Digest` or `Repr-Digest` (sha-256) are checked.',
    tags: ['Files'],
    auth: 'apiKey',
    role: 'write',
    headers: [...WRITE_CONDITIONS, 'Content-Digest', 'Repr-Digest'],
    query: MERGE_BASE_QUERY,
    body: { contentType: 'text/markdown', description: 'The new content, UTF-8.' },
    answers: {
      200: json('The file as updated', FileContentUpdate, FILE_VALIDATORS),
      409: json('With `merge_base`: the changes overlap (nothing written)', MergeConflicts),
      ...errors(400, 403, 404, 412, 413, 415, 422, 428),
    },
  },
  ({ store }) => {
    const maxFileBytes = store.settings.maxFileBytes;
    const tooLarge = () => new ContentTooLargeError(maxFileBytes);
    return async (req, res) => {
      // A malformed digest field is judged with the other header-only answers (415, declared 413):
      // after the project and file checks, before the preconditions. The core reads the digests only
      // once the content has streamed in, so filling them in during `check` is in time.
      const expectedSha256: ExpectedDigest[] = [];
      const query = singleQueryParams(req, ['merge_base']);
      const body = markdownRequestBody(req, res, { maxFileBytes, tooLarge });
      const file = await store.files.updateContent({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        filename: filenameOf(req),
        content: deferredBody({
          check: () => {
            body.check();
            expectedSha256.push(...declaredDigests(req));
          },
          read: body.read,
        }),
        expectedSha256,
        conditions: conditionsOf(req),
        mergeBase: query.merge_base,
        signal: signalOf(res),
      });
      setFileValidators(res, file);
      res.status(200).json({ ...fileUpdateJson(file), ...(file.merged && { merged: true }) });
    };
  },
);

export const fileRoutes = [listFiles, uploadFile, updateFileMetadata, deleteFile, updateFileContent];
