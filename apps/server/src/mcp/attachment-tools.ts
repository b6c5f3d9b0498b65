import {
  ATTACHMENT_LIMITS,
  type ByteStream,
  ContentTooLargeError,
  essenceOf,
  isMcpImage,
} from '@mdstore/core';
import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import * as v from 'valibot';
import { Attachment, AttachmentList } from '../http/api/schemas.js';
import { attachmentJson, attachmentListJson } from '../views.js';
import { toolOutput } from './answers.js';
import { withContent } from './results.js';
import { ifMatchOf, type McpTool, READ_ONLY, ToolArgumentError, writes } from './tool-kit.js';
import { ARG, toolInput } from './tool-schemas.js';

/**
 * The MCP tools of attachments (extensions §12): list, read (an image as MCP image content up to
 * `mcpImageMaxBytes`, anything else as a resource link), write (base64, up to `mcpWriteMaxBytes`). They
 * call the use cases the HTTP routes call.
 */

const PATH = v.pipe(v.string(), v.description('The attachment path, e.g. "img/diagram.png" (not .md/.mdx).'));
const { mcpImageMaxBytes, mcpWriteMaxBytes } = ATTACHMENT_LIMITS;
/** The longest base64 text of `mcpWriteMaxBytes` bytes (4 characters per 3 bytes). */
const MAX_BASE64 = Math.ceil(mcpWriteMaxBytes / 3) * 4;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const ReadAnswer = v.strictObject({
  ...Attachment.entries,
  delivered: v.pipe(
    v.picklist(['image', 'resource_link']),
    v.description(
      `image: the bytes follow as MCP image content (PNG, JPEG, GIF, WebP up to ${mcpImageMaxBytes} bytes); resource_link: a link to read them over HTTP.`,
    ),
  ),
});
const WriteAnswer = v.strictObject({
  ...Attachment.entries,
  created: v.pipe(v.boolean(), v.description('true: the path was free; false: an attachment was replaced.')),
});

async function bytesOf(content: ByteStream): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of content) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function* oneChunk(bytes: Uint8Array): ByteStream {
  yield bytes;
}

export const ATTACHMENT_TOOLS: readonly McpTool[] = [
  {
    name: 'list_attachments',
    operation: 'listAttachments',
    title: 'List attachments',
    description:
      'The attachments of a project (images, PDFs, other non-Markdown files) in path order, one page: ' +
      'give "prefix" for one folder, and pass the answer\'s "next_cursor" as "cursor" for the next page.',
    inputSchema: toolInput({
      project_id: ARG.projectId,
      prefix: v.optional(v.pipe(v.string(), v.description('Only paths starting with it.'))),
      limit: ARG.fileListLimit,
      cursor: ARG.cursor,
    }),
    outputSchema: toolOutput(AttachmentList),
    annotations: READ_ONLY,
    run: async (context, args) => {
      const list = await context.store.attachments.list({
        principal: context.principal,
        projectId: args.string('project_id'),
        params: {
          ...(args.has('prefix') && { prefix: args.string('prefix') }),
          ...(args.has('cursor') && { cursor: args.string('cursor') }),
          ...(args.has('limit') && { limit: String(args.raw('limit')) }),
        },
      });
      return attachmentListJson(list);
    },
  },
  {
    name: 'read_attachment',
    operation: 'readAttachment',
    title: 'Read an attachment',
    description:
      `An attachment's details; a PNG, JPEG, GIF or WebP image up to ${mcpImageMaxBytes} bytes comes with ` +
      'its bytes as image content, anything else as a resource link (read it over HTTP with GET ' +
      '/api/projects/{project_id}/attachments/{path}).',
    inputSchema: toolInput({ project_id: ARG.projectId, path: PATH }),
    outputSchema: toolOutput(ReadAnswer),
    annotations: READ_ONLY,
    run: async (context, args) => {
      const projectId = args.string('project_id');
      const path = args.string('path');
      const target = { principal: context.principal, projectId, path, signal: context.signal };
      const head = await context.store.attachments.read({ ...target, open: false });
      const { attachment } = head;
      if (isMcpImage(attachment.contentType) && attachment.sizeBytes <= mcpImageMaxBytes) {
        const read = await context.store.attachments.read(target);
        if (read.kind !== 'content' || read.content === null)
          throw new Error('unreachable: an unconditional read');
        const bytes = await bytesOf(read.content);
        const image: ContentBlock = {
          type: 'image',
          data: bytes.toString('base64'),
          mimeType: essenceOf(read.attachment.contentType)!,
        };
        return withContent({ ...attachmentJson(read.attachment), delivered: 'image' }, [image]);
      }
      const link: ContentBlock = {
        type: 'resource_link',
        uri: `mdstore://projects/${projectId}/attachments/${encodeURIComponent(path)}`,
        name: path,
        mimeType: attachment.contentType,
        description: `GET /api/projects/${projectId}/attachments/${encodeURIComponent(path)} (${attachment.sizeBytes} bytes)`,
      };
      return withContent({ ...attachmentJson(attachment), delivered: 'resource_link' }, [link]);
    },
  },
  {
    name: 'write_attachment',
    operation: 'writeAttachment',
    title: 'Write an attachment',
    description:
      `Creates or replaces an attachment from base64 bytes (at most ${mcpWriteMaxBytes} bytes decoded) with ` +
      'its content_type (checked against the bytes for images, PDF, SVG and HTML). Pass if_match with the ' +
      'etag to replace only the version you read.',
    inputSchema: toolInput({
      project_id: ARG.projectId,
      path: PATH,
      content_type: v.pipe(v.string(), v.description('The media type, e.g. "image/png".')),
      content_base64: v.pipe(v.string(), v.description('The bytes, base64 (standard alphabet, padded).')),
      if_match: v.optional(ARG.ifMatch),
    }),
    outputSchema: toolOutput(WriteAnswer),
    annotations: writes({ destructive: true, idempotent: true }),
    run: async (context, args) => {
      const text = args.string('content_base64');
      if (text.length > MAX_BASE64) throw new ContentTooLargeError(mcpWriteMaxBytes);
      if (!BASE64.test(text)) {
        throw new ToolArgumentError([
          { loc: ['arguments', 'content_base64'], msg: 'Value error, not base64', type: 'value_error' },
        ]);
      }
      const bytes = Buffer.from(text, 'base64');
      if (bytes.length > mcpWriteMaxBytes) throw new ContentTooLargeError(mcpWriteMaxBytes);
      const conditions = ifMatchOf(args.optionalString('if_match'));
      const written = await context.store.attachments.write({
        principal: context.principal,
        projectId: args.string('project_id'),
        path: args.string('path'),
        contentType: args.string('content_type'),
        content: oneChunk(bytes),
        ...(conditions && { conditions }),
        signal: context.signal,
      });
      return { ...attachmentJson(written.attachment), created: written.created };
    },
  },
];
