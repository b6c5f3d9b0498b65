import {
  ifMatch,
  ifNoneMatch,
  ifUnmodifiedSince,
  type ReadPreconditions,
  readConditionHeaders,
  type WritePreconditions,
} from './conditions.js';
import type { components } from './generated/openapi.js';
import type { RequestOptions, TypedApi } from './transport.js';

export type Attachment = components['schemas']['Attachment'];
export type AttachmentList = components['schemas']['AttachmentList'];
/** A moved attachment; with `rewriteLinks`, `rewritten` lists the files whose links were rewritten. */
export type MovedAttachment = components['schemas']['MovedAttachment'];

/** The bytes of an attachment as the SDK sends them. */
export type AttachmentBody = Uint8Array | ArrayBuffer | Blob | string;

const PATH = '/api/projects/{project_id}/attachments/{path}' as const;

/**
 * Attachments of a project (extensions §12): images, PDFs and any other non-Markdown files, by path.
 * A path's `/` travels as `%2F` (the transport encodes every path parameter as one segment).
 */
export class AttachmentsApi {
  constructor(private readonly api: TypedApi) {}

  /** Writes (creates or replaces) the attachment with `contentType`; `created` tells 201 from 200. */
  async write(
    projectId: string,
    path: string,
    body: AttachmentBody,
    contentType: string,
    options: RequestOptions & WritePreconditions = {},
  ): Promise<Attachment & { created: boolean }> {
    const headers = {
      'If-Match': ifMatch(options),
      'If-None-Match': ifNoneMatch(options),
      'If-Unmodified-Since': ifUnmodifiedSince(options),
    };
    const response = await this.api.request(
      'put',
      PATH,
      { path: { project_id: projectId, path }, headers, body, contentType },
      options,
    );
    return { ...((await response.json()) as Attachment), created: response.status === 201 };
  }

  /** The raw answer of a read (`Range`, conditions): its body, headers and status (304, 206) as sent. */
  read(
    projectId: string,
    path: string,
    options: RequestOptions & ReadPreconditions & { range?: string } = {},
  ): Promise<Response> {
    const headers = { ...readConditionHeaders(options), Range: options.range };
    return this.api.request(
      'get',
      PATH,
      { path: { project_id: projectId, path }, headers, expect: [304] },
      options,
    );
  }

  /** The headers of a read, without the bytes. */
  head(projectId: string, path: string, options: RequestOptions & ReadPreconditions = {}): Promise<Response> {
    const headers = readConditionHeaders(options);
    return this.api.request(
      'head',
      PATH,
      { path: { project_id: projectId, path }, headers, expect: [304] },
      options,
    );
  }

  /** One page, in path order. */
  async list(
    projectId: string,
    options: RequestOptions & {
      prefix?: string;
      delimiter?: '/';
      limit?: number;
      cursor?: string | null;
    } = {},
  ): Promise<AttachmentList> {
    const query = {
      prefix: options.prefix,
      delimiter: options.delimiter,
      limit: options.limit,
      cursor: options.cursor ?? undefined,
    };
    const call = '/api/projects/{project_id}/attachments';
    return (await this.api.json('get', call, { path: { project_id: projectId }, query }, options)).data;
  }

  /**
   * Moves the attachment to `to` (409 if it exists); its bytes are not copied. `rewriteLinks` rewrites
   * every link and embed to it in the project's files in the same change (the answer's `rewritten`);
   * with `dryRun` nothing changes and the answer shows what would be rewritten.
   */
  async move(
    projectId: string,
    path: string,
    to: string,
    options: RequestOptions & WritePreconditions & { rewriteLinks?: boolean; dryRun?: boolean } = {},
  ): Promise<MovedAttachment> {
    const json = {
      to,
      ...(options.rewriteLinks !== undefined && { rewrite_links: options.rewriteLinks }),
      ...(options.dryRun !== undefined && { dry_run: options.dryRun }),
    };
    const headers = {
      'If-Match': ifMatch(options),
      'If-None-Match': ifNoneMatch(options),
      'If-Unmodified-Since': ifUnmodifiedSince(options),
    };
    const call = { path: { project_id: projectId, path }, headers, json };
    return (await this.api.json('post', `${PATH}/move`, call, options)).data;
  }

  async delete(
    projectId: string,
    path: string,
    options: RequestOptions & WritePreconditions = {},
  ): Promise<void> {
    const headers = { 'If-Match': ifMatch(options), 'If-Unmodified-Since': ifUnmodifiedSince(options) };
    await this.api.request('delete', PATH, { path: { project_id: projectId, path }, headers }, options);
  }
}
