import { ContentTooLargeError, deferredBody, type ExpectedDigest, parseDigestField } from '@mdstore/core';
import type { Request } from 'express';
import { principalOf } from '../auth.js';
import { HttpError } from '../errors.js';
import { jsonRequestBody, markdownRequestBody, uploadRequestBody } from '../request-body.js';
import { conditionsOf, headerValue, setFileValidators } from '../validators.js';
import { fileJson, fileUpdateJson } from '../views.js';
import { filenameOf, projectIdOf, type RouteDeps, type RouteHandlers, signalOf } from './context.js';
import { download } from './download.js';

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

/** The file routes of the interface, with the ETags, preconditions, ranges and digests of extensions §2. */
export function fileRoutes(deps: RouteDeps): Record<string, RouteHandlers> {
  const { store } = deps;
  const maxFileBytes = store.settings.maxFileBytes;
  const tooLarge = () => new ContentTooLargeError(maxFileBytes);
  return {
    '/api/projects/:project_id/files': {
      GET: async (req, res) => {
        const list = await store.files.list({ principal: principalOf(res), projectId: projectIdOf(req) });
        res.status(200).json({
          files: list.files.map(fileJson),
          total_count: list.totalCount,
          total_size_bytes: list.totalSizeBytes,
        });
      },
      POST: async (req, res) => {
        const signal = signalOf(res);
        const file = await store.files.upload({
          principal: principalOf(res),
          projectId: projectIdOf(req),
          form: uploadRequestBody(req, res, { limits: deps.multipartLimits, maxFileBytes, tooLarge, signal }),
          signal,
        });
        setFileValidators(res, file);
        res.status(201).json(fileJson(file));
      },
    },
    '/api/projects/:project_id/files/:filename': {
      GET: (req, res) => download(deps, req, res),
      PUT: async (req, res) => {
        const file = await store.files.updateMetadata({
          principal: principalOf(res),
          projectId: projectIdOf(req),
          filename: filenameOf(req),
          body: jsonRequestBody(req, res, deps.maxJsonBytes),
          conditions: conditionsOf(req),
        });
        setFileValidators(res, file);
        res.status(200).json(fileUpdateJson(file));
      },
      DELETE: async (req, res) => {
        await store.files.delete({
          principal: principalOf(res),
          projectId: projectIdOf(req),
          filename: filenameOf(req),
          conditions: conditionsOf(req),
        });
        res.status(204).end();
      },
    },
    '/api/projects/:project_id/files/:filename/content': {
      PUT: async (req, res) => {
        // A malformed digest field is judged with the other header-only answers (415, declared 413):
        // after the project and file checks, before the preconditions. The core reads the digests only
        // once the content has streamed in, so filling them in during `check` is in time.
        const expectedSha256: ExpectedDigest[] = [];
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
          signal: signalOf(res),
        });
        setFileValidators(res, file);
        res.status(200).json(fileUpdateJson(file));
      },
    },
  };
}
