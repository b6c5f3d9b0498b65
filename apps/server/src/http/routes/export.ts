import { pipeline } from 'node:stream/promises';
import { LIST_LIMITS } from '@mdstore/core';
import * as v from 'valibot';
import {
  EXPORT_FORMATS,
  type ExportFormat,
  isExportFormat,
  writeExportArchive,
} from '../../archive/index.js';
import { errors } from '../api/answers.js';
import { defineRoute } from '../api/route.js';
import { principalOf } from '../auth.js';
import { asciiFallback, encodeRfc8187 } from '../content-disposition.js';
import { HttpError } from '../errors.js';
import { singleQueryParams } from '../query.js';
import { projectIdOf, signalOf } from './context.js';

const FORMATS = Object.keys(EXPORT_FORMATS) as ExportFormat[];

/** `Content-Disposition: attachment` named after the project (`My notes.zip`), safe for any name. */
function archiveDisposition(projectName: string, format: ExportFormat): string {
  const name = `${projectName}.${EXPORT_FORMATS[format].extension}`;
  return `attachment; filename="${asciiFallback(name)}"; filename*=UTF-8''${encodeRfc8187(name)}`;
}

/** Extensions §10: the whole project (or a prefix of it) as one streamed archive. */
export const exportProject = defineRoute(
  {
    method: 'GET',
    path: '/api/projects/:project_id/export',
    operationId: 'exportProject',
    summary: 'Export a project',
    description:
      'A zip (default) or tar.gz archive, streamed: every file (of `prefix`) at its filename, byte for ' +
      'byte, then every attachment (of `prefix`) at its path, then `mdstore.json` (`project`: name, ' +
      'description, settings; `files`: filename, metadata, sha256, revision, created_date, updated_date ' +
      'of each file, exactly the version archived; `attachments`: path, content_type, size, sha256). ' +
      'Each file and attachment is one whole version, read when the export reaches it.',
    tags: ['Projects'],
    auth: 'apiKey',
    role: 'read',
    query: {
      format: { schema: v.picklist(FORMATS), description: 'The archive format (default `zip`).' },
      prefix: {
        schema: v.string(),
        description: `Only files and attachments whose name starts with this text (at most ${LIST_LIMITS.maxPrefixBytes} bytes of UTF-8).`,
      },
    },
    answers: {
      200: {
        description: 'The archive',
        body: { contentType: 'application/zip' },
        otherBodies: [{ contentType: 'application/gzip' }],
        headers: ['Content-Disposition'],
      },
      ...errors(403, 404, 422),
    },
  },
  (deps) => async (req, res) => {
    const params = singleQueryParams(req, ['format', 'prefix'] as const);
    const signal = signalOf(res);
    const exported = await deps.store.projects.export({
      principal: principalOf(res),
      projectId: projectIdOf(req),
      ...(params.prefix !== undefined && { prefix: params.prefix }),
      signal,
    });
    const format = params.format ?? 'zip';
    if (!isExportFormat(format)) {
      throw new HttpError(422, [
        { loc: ['query', 'format'], msg: "Input should be 'zip' or 'tar.gz'", type: 'enum' },
      ]);
    }
    res.status(200);
    res.setHeader('Content-Type', EXPORT_FORMATS[format].contentType);
    res.setHeader('Content-Disposition', archiveDisposition(exported.project.name, format));
    if (req.method === 'HEAD') {
      // The headers only: nothing is read.
      res.end();
      return;
    }
    try {
      await pipeline(writeExportArchive(exported, format), res);
    } catch (error) {
      if (signal.aborted) return; // the client left
      deps.logger.warn('export interrupted', {
        path: req.originalUrl.split('?', 1)[0],
        error: error instanceof Error ? error.message : String(error),
      });
      res.destroy();
    }
  },
);
