import {
  type AttachmentDownload,
  type AttachmentView,
  ContentTooLargeError,
  contentRangeHeader,
  formatHttpDate,
  formatReprDigest,
  isInlineType,
  mayRunScript,
} from '@mdstore/core';
import type { Request, Response } from 'express';
import { attachmentJson, attachmentListJson } from '../../views.js';
import { errors, FILE_VALIDATORS, json } from '../api/answers.js';
import { FILE_LIST_QUERY } from '../api/parameters.js';
import { defineRoute, type RequestHeader, type ResponseHeader } from '../api/route.js';
import { Attachment, AttachmentList, AttachmentMoveRequest, MovedAttachment } from '../api/schemas.js';
import { auditFilename } from '../audit.js';
import { principalOf } from '../auth.js';
import { attachmentDisposition } from '../content-disposition.js';
import { singleQueryParams } from '../query.js';
import { jsonRequestBody, rawRequestBody } from '../request-body.js';
import { conditionsOf, headerValue } from '../validators.js';
import { projectIdOf, type RouteDeps, signalOf } from './context.js';
import { sendContent } from './download.js';

/** The attachment routes (extensions §12): their own resource beside the files. */

const ATTACHMENTS = '/api/projects/:project_id/attachments';
const ATTACHMENT = `${ATTACHMENTS}/:path`;
const WRITE_CONDITIONS: readonly RequestHeader[] = ['If-Match', 'If-None-Match', 'If-Unmodified-Since'];
/** What a browser that opens an attachment may run: nothing (SVG, HTML and XML carry it). */
export const ATTACHMENT_SANDBOX = "sandbox; default-src 'none'; style-src 'unsafe-inline'";
const READ_HEADERS: readonly ResponseHeader[] = [
  ...FILE_VALIDATORS,
  'Content-Disposition',
  'X-Content-Type-Options',
  'Accept-Ranges',
  'Repr-Digest',
];

/** `limit`, `cursor`, `prefix` and `delimiter` as List Files has them (extensions §3). */
const ATTACHMENT_LIST_QUERY = {
  limit: FILE_LIST_QUERY.limit!,
  cursor: FILE_LIST_QUERY.cursor!,
  prefix: FILE_LIST_QUERY.prefix!,
  delimiter: FILE_LIST_QUERY.delimiter!,
};

const pathOf = (req: Request): string => String(req.params.path ?? '');

export function setAttachmentValidators(res: Response, a: AttachmentView): void {
  res.setHeader('ETag', a.etag);
  res.setHeader('Last-Modified', formatHttpDate(a.updatedAt));
  res.setHeader('Cache-Control', 'private, no-cache');
}

export const listAttachments = defineRoute(
  {
    method: 'GET',
    path: ATTACHMENTS,
    operationId: 'listAttachments',
    summary: 'List attachments',
    description:
      'One page of the project’s attachments in path order (code points), narrowed by `prefix`, folded ' +
      'at `/` with `delimiter` (the folders in `folders`), continued with `cursor`.',
    tags: ['Attachments'],
    auth: 'apiKey',
    role: 'read',
    query: ATTACHMENT_LIST_QUERY,
    answers: { 200: json('One page of attachments', AttachmentList), ...errors(403, 404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      const list = await store.attachments.list({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        params: singleQueryParams(req, ['prefix', 'delimiter', 'cursor', 'limit'] as const),
      });
      res.status(200).json(attachmentListJson(list));
    },
);

export const writeAttachment = defineRoute(
  {
    method: 'PUT',
    path: ATTACHMENT,
    operationId: 'writeAttachment',
    summary: 'Write an attachment',
    description:
      'The raw bytes, in any media type (`Content-Type` is kept as sent; for the types a browser renders ' +
      '— PNG, JPEG, GIF, WebP, BMP, ICO, PDF, SVG, HTML and XML — the bytes must be of that type, else ' +
      '415). 201 when the path was free, 200 when an attachment was replaced. Identical bytes in one ' +
      'project are stored once.',
    tags: ['Attachments'],
    auth: 'apiKey',
    role: 'write',
    headers: WRITE_CONDITIONS,
    body: { contentType: '*/*', description: 'The attachment’s bytes.' },
    answers: {
      200: json('The attachment, replaced', Attachment, FILE_VALIDATORS),
      201: json('The attachment, created', Attachment, FILE_VALIDATORS),
      ...errors(400, 403, 404, 409, 412, 413, 415, 428),
    },
  },
  ({ store }) => {
    const maxBytes = store.settings.maxAttachmentBytes;
    return async (req, res) => {
      const path = pathOf(req);
      const written = await store.attachments.write({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        path,
        contentType: headerValue(req.headers['content-type']),
        content: rawRequestBody(req, res, { maxBytes, tooLarge: () => new ContentTooLargeError(maxBytes) }),
        conditions: conditionsOf(req),
        signal: signalOf(res),
      });
      setAttachmentValidators(res, written.attachment);
      auditFilename(res, path);
      res.status(written.created ? 201 : 200).json(attachmentJson(written.attachment));
    };
  },
);

export const readAttachment = defineRoute(
  {
    method: 'GET',
    path: ATTACHMENT,
    operationId: 'readAttachment',
    summary: 'Read an attachment',
    description:
      'The bytes in their stored type, with `X-Content-Type-Options: nosniff`; `Content-Disposition: ' +
      'inline` for images, audio, video and PDF, else `attachment`; SVG, HTML and XML carry a sandboxing ' +
      '`Content-Security-Policy`. One byte range with `Range`; conditional with the If-* headers.',
    tags: ['Attachments'],
    auth: 'apiKey',
    role: 'read',
    headers: ['If-Match', 'If-None-Match', 'If-Modified-Since', 'If-Unmodified-Since', 'Range', 'If-Range'],
    answers: {
      200: {
        description: 'The attachment',
        body: { contentType: '*/*' },
        headers: READ_HEADERS,
        optionalHeaders: ['Content-Security-Policy'],
      },
      206: {
        description: 'One byte range of the attachment',
        body: { contentType: '*/*' },
        headers: [...READ_HEADERS, 'Content-Range'],
        optionalHeaders: ['Content-Security-Policy'],
      },
      304: { description: 'Not modified (no body)', headers: FILE_VALIDATORS },
      ...errors(400, 403, 404, 412, 416),
    },
    head: { operationId: 'headAttachment', summary: 'Attachment headers only' },
  },
  (deps) => async (req, res) => {
    const read = await deps.store.attachments.read({
      principal: principalOf(res),
      projectId: projectIdOf(req),
      path: pathOf(req),
      conditions: conditionsOf(req),
      range: req.headers.range,
      ifRange: headerValue(req.headers['if-range']),
      open: req.method !== 'HEAD',
      signal: signalOf(res),
    });
    await sendAttachment(deps, req, res, read);
  },
);

/** The answer of a read: validators, `304`, one range, the safety headers, and the bytes streamed. */
export async function sendAttachment(
  deps: RouteDeps,
  req: Request,
  res: Response,
  read: AttachmentDownload,
): Promise<void> {
  const { attachment } = read;
  setAttachmentValidators(res, attachment);
  if (read.kind === 'not-modified') {
    res.status(304).end();
    return;
  }
  const { range, content } = read;
  res.status(range ? 206 : 200);
  res.setHeader('Content-Type', attachment.contentType);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (mayRunScript(attachment.contentType)) res.setHeader('Content-Security-Policy', ATTACHMENT_SANDBOX);
  const disposition = attachmentDisposition(attachment.path);
  res.setHeader(
    'Content-Disposition',
    isInlineType(attachment.contentType) ? disposition.replace(/^attachment/, 'inline') : disposition,
  );
  const size = attachment.sizeBytes;
  res.setHeader('Content-Length', String(range ? range.end - range.start + 1 : size));
  if (range) res.setHeader('Content-Range', contentRangeHeader(range.start, range.end, size));
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('Repr-Digest', formatReprDigest(attachment.sha256));
  if (content === null) {
    res.end();
    return;
  }
  await sendContent(deps, req, res, content);
}

export const deleteAttachment = defineRoute(
  {
    method: 'DELETE',
    path: ATTACHMENT,
    operationId: 'deleteAttachment',
    summary: 'Delete an attachment',
    description:
      'Removes the attachment (not to the trash yet: the delete is final); its bytes go once no other ' +
      'path of the project has the same.',
    tags: ['Attachments'],
    auth: 'apiKey',
    role: 'write',
    headers: WRITE_CONDITIONS,
    answers: { 204: { description: 'Deleted' }, ...errors(400, 403, 404, 412, 428) },
  },
  ({ store }) =>
    async (req, res) => {
      const path = pathOf(req);
      await store.attachments.delete({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        path,
        conditions: conditionsOf(req),
      });
      auditFilename(res, path);
      res.status(204).end();
    },
);

export const moveAttachment = defineRoute(
  {
    method: 'POST',
    path: `${ATTACHMENT}/move`,
    operationId: 'moveAttachment',
    summary: 'Move (rename) an attachment',
    description:
      'The same attachment (its bytes are not copied) at the new path, with a new ETag. With `"rewrite_links": true` every link and embed to it in the project’s files is rewritten, the move and the rewrites one changeset; `"dry_run": true` changes nothing and answers what would be rewritten (extensions §9, §12).',
    tags: ['Attachments'],
    auth: 'apiKey',
    role: 'write',
    headers: WRITE_CONDITIONS,
    body: { contentType: 'application/json', schema: AttachmentMoveRequest },
    answers: {
      200: json('The attachment at its new path', MovedAttachment, FILE_VALIDATORS),
      ...errors(400, 403, 404, 409, 412, 413, 422, 428),
    },
  },
  (deps) => async (req, res) => {
    const path = pathOf(req);
    const moved = await deps.store.attachments.move({
      principal: principalOf(res),
      projectId: projectIdOf(req),
      path,
      body: jsonRequestBody(req, res, deps.maxJsonBytes),
      conditions: conditionsOf(req),
    });
    setAttachmentValidators(res, moved);
    auditFilename(res, path);
    res
      .status(200)
      .json({ ...attachmentJson(moved), ...(moved.rewritten && { rewritten: moved.rewritten }) });
  },
);

export const attachmentRoutes = [
  listAttachments,
  writeAttachment,
  readAttachment,
  deleteAttachment,
  moveAttachment,
];
