import {
  deferredBody,
  IMPORT_MODES,
  IMPORTERS,
  type ImportArchive,
  type ImportResult,
  mdStoreError,
} from '@mdstore/core';
import type { Request, Response } from 'express';
import * as v from 'valibot';
import { IMPORT_MEDIA_TYPES, isImportMediaType, readImportBody } from '../../archive/read/index.js';
import { fileSpool } from '../../archive/spool.js';
import { errors, json } from '../api/answers.js';
import { defineRoute } from '../api/route.js';
import { ImportResult as ImportAnswer } from '../api/schemas.js';
import { principalOf } from '../auth.js';
import { mediaTypeOf, sendContinue } from '../body.js';
import { HttpError } from '../errors.js';
import { singleQueryParams } from '../query.js';
import { projectIdOf, signalOf } from './context.js';

const MEDIA_TYPES = Object.keys(IMPORT_MEDIA_TYPES) as Array<keyof typeof IMPORT_MEDIA_TYPES>;
const BOOLEAN = v.picklist(['true', 'false']);

const importJson = (result: ImportResult) => ({
  changeset_id: result.changesetId,
  created: result.created,
  updated: result.updated,
  unchanged: result.unchanged,
  deleted: result.deleted,
  skipped: result.skipped,
  skipped_omitted: result.skippedOmitted,
});

/** The archive body: its media type and declared length judged before it is read (415, 413). */
function archiveBody(req: Request, res: Response, maxBytes: number) {
  const type = mediaTypeOf(req.headers['content-type']);
  return deferredBody<ImportArchive>({
    check: () => {
      if (!isImportMediaType(type)) {
        throw new HttpError(415, `Unsupported Media Type: Content-Type must be ${MEDIA_TYPES.join(' or ')}`);
      }
      const declared = Number(req.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes)
        throw mdStoreError('IMPORT_TOO_LARGE', { maxBytes });
    },
    read: () => {
      sendContinue(req, res);
      return readImportBody(type as keyof typeof IMPORT_MEDIA_TYPES, req, { maxBytes });
    },
  });
}

/** Extensions §10: an archive's Markdown files into the project, as one changeset. */
export const importProject = defineRoute(
  {
    method: 'POST',
    path: '/api/projects/:project_id/import',
    operationId: 'importProject',
    summary: 'Import an archive',
    description:
      'A zip or tar.gz (such as an export): every `.md`/`.mdx` entry becomes a file at its path, with the ' +
      'metadata `mdstore.json` gives it; every other entry an attachment at its path, with the ' +
      '`content_type` `mdstore.json` gives it or else one by its extension, its bytes checked against it. ' +
      'Dot folders, directories, links, absolute paths, `..`, names that break the filename rules, ' +
      'duplicates, non-UTF-8 and oversized entries, and attachments whose bytes are not their type are ' +
      'skipped with a reason. A file or attachment equal to the stored one is `unchanged` (no revision); ' +
      '`mode=replace` (role `admin`) deletes the files and attachments the archive lacks. All of it is ' +
      'one changeset, whole or nothing; attachments count toward the storage bound (413). Archives over `MDSTORE_MAX_IMPORT_BYTES` ' +
      'uncompressed (413), with more than 100 000 entries, a compression ratio above 200 or a tar name ' +
      '(PAX or long-name) header above 64 KiB (422) are refused before anything is written. `skipped` ' +
      'lists at most 1000 entries (`skipped_omitted` counts the rest), each name cut to 1024 bytes.',
    tags: ['Projects'],
    auth: 'apiKey',
    role: 'write',
    query: {
      mode: {
        schema: v.picklist(IMPORT_MODES),
        description:
          '`merge` (default) keeps the files and attachments the archive lacks; `replace` deletes them ' +
          '(role `admin`).',
      },
      dry_run: { schema: BOOLEAN, description: 'With `true`, the answer is worked out and nothing changes.' },
      importer: {
        schema: v.picklist(IMPORTERS),
        description:
          'What the archive comes from: `plain` (default) and `obsidian` take files as they are; `notion` ' +
          'removes the id suffixes from names and rewrites links to match; `gitbook` turns links to a ' +
          'folder into links to its README.md.',
      },
    },
    body: {
      contentType: 'application/zip',
      otherContentTypes: ['application/gzip'],
      description: 'The archive: a zip, or a tar.gz sent as application/gzip.',
    },
    answers: {
      200: json('What the import did', ImportAnswer),
      ...errors(403, 404, 413, 415, 422),
    },
  },
  (deps) => async (req, res) => {
    const params = singleQueryParams(req, ['mode', 'dry_run', 'importer'] as const);
    const mode = parseChoice('mode', params.mode, IMPORT_MODES);
    const dryRun = parseChoice('dry_run', params.dry_run, ['true', 'false'] as const) === 'true';
    const importer = parseChoice('importer', params.importer, IMPORTERS);
    const result = await deps.store.projects.import({
      principal: principalOf(res),
      projectId: projectIdOf(req),
      ...(mode && { mode }),
      ...(importer && { importer }),
      dryRun,
      archive: archiveBody(req, res, deps.store.settings.maxImportBytes),
      // The archive's Markdown contents wait for the commit in a temporary file, not in memory.
      spool: () => fileSpool(),
      signal: signalOf(res),
    });
    res.status(200).json(importJson(result));
  },
);

function parseChoice<T extends string>(
  name: string,
  value: string | undefined,
  choices: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new HttpError(422, [
    {
      loc: ['query', name],
      msg: `Input should be ${choices.map((choice) => `'${choice}'`).join(' or ')}`,
      type: 'enum',
    },
  ]);
}
