// One-off authoring aid, kept so the interim document can be regenerated consistently: it writes
// packages/client/openapi.json. Part 2 of the Reach issue replaces this file's output with the document the
// server generates from its own schemas (GET /openapi.json); then this script is deleted.
import { writeFileSync } from 'node:fs';

const ref = (name) => ({ $ref: `#/components/${name}` });
const json = (schema) => ({ 'application/json': { schema } });
const header = (name) => ({ $ref: `#/components/headers/${name}` });
const RATE = {
  'X-RateLimit-Limit': header('X-RateLimit-Limit'),
  'X-RateLimit-Remaining': header('X-RateLimit-Remaining'),
  'X-RateLimit-Reset': header('X-RateLimit-Reset'),
  'X-Request-Id': header('X-Request-Id'),
};
const VALIDATORS = {
  ETag: header('ETag'),
  'Cache-Control': header('Cache-Control'),
};
const FILE_VALIDATORS = { ...VALIDATORS, 'Last-Modified': header('Last-Modified') };
const DOWNLOAD_HEADERS = {
  ...RATE,
  ...FILE_VALIDATORS,
  'Content-Disposition': header('Content-Disposition'),
  'Accept-Ranges': header('Accept-Ranges'),
  'Repr-Digest': header('Repr-Digest'),
  'X-File-Size': header('X-File-Size'),
  'X-Created-Date': header('X-Created-Date'),
  'X-Updated-Date': header('X-Updated-Date'),
};
const error = (status) => ref(`responses/${status}`);
const COMMON = { 401: error('Unauthorized'), 429: error('RateLimited'), 500: error('ServerError') };
const PROJECT_ERRORS = {
  ...COMMON,
  403: error('Forbidden'),
  404: error('NotFound'),
  422: error('Invalid'),
};
const param = (name) => ref(`parameters/${name}`);
const PROJECT_PATH = [param('ProjectId')];
const FILE_PATH = [param('ProjectId'), param('Filename')];

const operations = {
  '/api/projects': {
    get: {
      operationId: 'listProjects',
      summary: 'List projects',
      description:
        'Every project of the account, deleted ones included, ordered by created_date then id. ' +
        '`limit` and `cursor` page the list on servers with paging (extensions §3); others ignore them.',
      tags: ['Projects'],
      parameters: [param('Limit'), param('Cursor')],
      responses: {
        200: { description: 'The projects', headers: RATE, content: json(ref('schemas/ProjectList')) },
        ...COMMON,
      },
    },
    post: {
      operationId: 'createProject',
      summary: 'Create a project',
      tags: ['Projects'],
      requestBody: { required: true, content: json(ref('schemas/ProjectCreate')) },
      responses: {
        201: {
          description: 'The new project',
          headers: { ...RATE, ...VALIDATORS },
          content: json(ref('schemas/Project')),
        },
        400: error('BadRequest'),
        409: error('Conflict'),
        413: error('PayloadTooLarge'),
        415: error('UnsupportedMediaType'),
        422: error('Invalid'),
        ...COMMON,
      },
    },
  },
  '/api/projects/{project_id}': {
    parameters: PROJECT_PATH,
    get: {
      operationId: 'getProject',
      summary: 'Get a project',
      tags: ['Projects'],
      parameters: [param('IfMatch'), param('IfNoneMatch')],
      responses: {
        200: {
          description: 'The project',
          headers: { ...RATE, ...VALIDATORS },
          content: json(ref('schemas/Project')),
        },
        304: error('NotModified'),
        412: error('PreconditionFailed'),
        ...PROJECT_ERRORS,
      },
    },
    put: {
      operationId: 'updateProject',
      summary: 'Update a project',
      description: 'Only the fields given change; at least one of name, description, settings.',
      tags: ['Projects'],
      parameters: [param('IfMatch'), param('IfNoneMatch'), param('IfUnmodifiedSince')],
      requestBody: { required: true, content: json(ref('schemas/ProjectUpdate')) },
      responses: {
        200: {
          description: 'The updated project',
          headers: { ...RATE, ...VALIDATORS },
          content: json(ref('schemas/Project')),
        },
        400: error('BadRequest'),
        409: error('Conflict'),
        412: error('PreconditionFailed'),
        413: error('PayloadTooLarge'),
        415: error('UnsupportedMediaType'),
        ...PROJECT_ERRORS,
      },
    },
    delete: {
      operationId: 'deleteProject',
      summary: 'Delete a project',
      description: 'Deletes every file, then the project. The default project cannot be deleted (403).',
      tags: ['Projects'],
      parameters: [param('IfMatch'), param('IfUnmodifiedSince')],
      responses: {
        200: { description: 'Deleted', headers: RATE, content: json(ref('schemas/ProjectDeleted')) },
        412: error('PreconditionFailed'),
        ...PROJECT_ERRORS,
      },
    },
  },
  '/api/projects/{project_id}/files': {
    parameters: PROJECT_PATH,
    get: {
      operationId: 'listFiles',
      summary: 'List files',
      description:
        'Every file of the project, ordered by filename (code points). `limit` and `cursor` page the list ' +
        'on servers with paging (extensions §3); others ignore them.',
      tags: ['Files'],
      parameters: [param('Limit'), param('Cursor')],
      responses: {
        200: { description: 'The files', headers: RATE, content: json(ref('schemas/FileList')) },
        ...PROJECT_ERRORS,
      },
    },
    post: {
      operationId: 'uploadFile',
      summary: 'Upload a file',
      description:
        'A multipart form with the `file` part (its filename is the file name, `.md` or `.mdx`), an ' +
        'optional `metadata` field (a JSON object as text) and an optional `sha256` field (lower-case hex ' +
        'of the content, checked by the server).',
      tags: ['Files'],
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: ref('schemas/UploadForm'),
            encoding: { file: { contentType: 'text/markdown' } },
          },
        },
      },
      responses: {
        201: {
          description: 'The stored file',
          headers: { ...RATE, ...FILE_VALIDATORS },
          content: json(ref('schemas/File')),
        },
        400: error('BadRequest'),
        409: error('Conflict'),
        413: error('PayloadTooLarge'),
        415: error('UnsupportedMediaType'),
        ...PROJECT_ERRORS,
      },
    },
  },
  '/api/projects/{project_id}/files/{filename}': {
    parameters: FILE_PATH,
    get: {
      operationId: 'downloadFile',
      summary: 'Download a file',
      description: 'The raw content; one byte range with `Range`; conditional with the If-* headers.',
      tags: ['Files'],
      parameters: [
        param('IfMatch'),
        param('IfNoneMatch'),
        param('IfModifiedSince'),
        param('IfUnmodifiedSince'),
        param('Range'),
        param('IfRange'),
      ],
      responses: {
        200: ref('responses/Content'),
        206: ref('responses/PartialContent'),
        304: error('NotModified'),
        412: error('PreconditionFailed'),
        416: error('RangeNotSatisfiable'),
        ...PROJECT_ERRORS,
      },
    },
    head: {
      operationId: 'headFile',
      summary: 'Download headers only',
      description: 'The headers of a download, without the content.',
      tags: ['Files'],
      parameters: [
        param('IfMatch'),
        param('IfNoneMatch'),
        param('IfModifiedSince'),
        param('IfUnmodifiedSince'),
      ],
      responses: {
        200: { description: 'The headers of the content', headers: DOWNLOAD_HEADERS },
        304: { description: 'Not modified', headers: { ...RATE, ...FILE_VALIDATORS } },
        412: { description: 'Precondition failed', headers: { ...RATE, ETag: header('ETag') } },
        ...PROJECT_ERRORS,
      },
    },
    put: {
      operationId: 'updateFileMetadata',
      summary: 'Replace the metadata of a file',
      tags: ['Files'],
      parameters: [param('IfMatch'), param('IfNoneMatch'), param('IfUnmodifiedSince')],
      requestBody: { required: true, content: json(ref('schemas/MetadataUpdate')) },
      responses: {
        200: {
          description: 'The file after the update',
          headers: { ...RATE, ...FILE_VALIDATORS },
          content: json(ref('schemas/FileUpdate')),
        },
        400: error('BadRequest'),
        412: error('PreconditionFailed'),
        413: error('PayloadTooLarge'),
        415: error('UnsupportedMediaType'),
        428: error('PreconditionRequired'),
        ...PROJECT_ERRORS,
      },
    },
    delete: {
      operationId: 'deleteFile',
      summary: 'Delete a file',
      tags: ['Files'],
      parameters: [param('IfMatch'), param('IfNoneMatch'), param('IfUnmodifiedSince')],
      responses: {
        204: { description: 'Deleted', headers: RATE },
        412: error('PreconditionFailed'),
        428: error('PreconditionRequired'),
        ...PROJECT_ERRORS,
      },
    },
  },
  '/api/projects/{project_id}/files/{filename}/content': {
    parameters: FILE_PATH,
    put: {
      operationId: 'updateFileContent',
      summary: 'Replace the content of a file',
      description: 'The metadata is kept. `Content-Digest` or `Repr-Digest` (sha-256) are checked.',
      tags: ['Files'],
      parameters: [
        param('IfMatch'),
        param('IfNoneMatch'),
        param('IfUnmodifiedSince'),
        param('ContentDigest'),
        param('ReprDigest'),
      ],
      requestBody: {
        required: true,
        content: { 'text/markdown': { schema: { type: 'string', contentMediaType: 'text/markdown' } } },
      },
      responses: {
        200: {
          description: 'The file after the update',
          headers: { ...RATE, ...FILE_VALIDATORS },
          content: json(ref('schemas/FileUpdate')),
        },
        400: error('BadRequest'),
        412: error('PreconditionFailed'),
        413: error('PayloadTooLarge'),
        415: error('UnsupportedMediaType'),
        428: error('PreconditionRequired'),
        ...PROJECT_ERRORS,
      },
    },
  },
  '/healthz': {
    get: {
      operationId: 'getHealth',
      summary: 'Health',
      description: 'The process answers HTTP. No key.',
      tags: ['Operations'],
      security: [],
      responses: {
        200: { description: 'Serving', content: json(ref('schemas/Health')) },
        503: error('Unavailable'),
      },
    },
  },
  '/readyz': {
    get: {
      operationId: 'getReadiness',
      summary: 'Readiness',
      description: 'The records store and the blob store answer within 2 s. No key.',
      tags: ['Operations'],
      security: [],
      responses: {
        200: { description: 'Ready', content: json(ref('schemas/Readiness')) },
        503: error('Unavailable'),
      },
    },
  },
};

const uuid = { type: 'string', format: 'uuid' };
const dateTime = { type: 'string', format: 'date-time' };
const metadata = {
  description: 'A custom JSON object (at most 64 KiB as compact JSON, 32 levels), or null.',
  oneOf: [{ type: 'object', additionalProperties: true }, { type: 'null' }],
};
const settingsProperties = {
  require_if_match: { type: 'boolean', description: 'Writes to an existing file need If-Match (428).' },
  keep_revisions: { type: 'integer', minimum: 1, maximum: 1000 },
  trash_retention_days: { type: 'integer', minimum: 0, maximum: 365 },
};
const fileFields = {
  filename: { type: 'string', description: 'Unique in the project; `.md` or `.mdx`.' },
  project_id: uuid,
  size_bytes: { type: 'integer', minimum: 0 },
  metadata,
  updated_date: dateTime,
  etag: { type: 'string', description: 'Strong entity tag, quotes included; echo it in If-Match.' },
  revision: { type: 'integer', minimum: 1 },
  sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
};

const components = {
  securitySchemes: {
    apiKey: { type: 'http', scheme: 'bearer', description: 'An API key from the admin CLI.' },
  },
  schemas: {
    Project: {
      type: 'object',
      required: [
        'id',
        'name',
        'description',
        'bucket_name',
        'is_default',
        'is_active',
        'file_count',
        'total_size_bytes',
        'created_date',
        'updated_date',
        'etag',
        'settings',
        'history_size_bytes',
        'trash_size_bytes',
      ],
      properties: {
        id: uuid,
        name: { type: 'string', minLength: 1, maxLength: 255 },
        description: { type: ['string', 'null'] },
        bucket_name: { type: 'string' },
        is_default: { type: 'boolean' },
        is_active: { type: 'boolean' },
        file_count: { type: 'integer', minimum: 0 },
        total_size_bytes: { type: 'integer', minimum: 0 },
        created_date: dateTime,
        updated_date: dateTime,
        etag: { type: 'string' },
        settings: ref('schemas/ProjectSettings'),
        history_size_bytes: { type: 'integer', minimum: 0 },
        trash_size_bytes: { type: 'integer', minimum: 0 },
      },
    },
    ProjectSettings: {
      type: 'object',
      required: Object.keys(settingsProperties),
      properties: settingsProperties,
    },
    ProjectSettingsInput: {
      type: 'object',
      additionalProperties: false,
      description: 'Any subset of the settings; omitted keys keep their value.',
      properties: settingsProperties,
    },
    ProjectList: {
      type: 'object',
      required: ['projects', 'total_count'],
      properties: {
        projects: { type: 'array', items: ref('schemas/Project') },
        total_count: { type: 'integer', minimum: 0 },
        next_cursor: { type: ['string', 'null'], description: 'On servers with paging.' },
      },
    },
    ProjectCreate: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 255 },
        description: { type: ['string', 'null'] },
        settings: ref('schemas/ProjectSettingsInput'),
      },
    },
    ProjectUpdate: {
      type: 'object',
      minProperties: 1,
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 255 },
        description: { type: ['string', 'null'] },
        settings: ref('schemas/ProjectSettingsInput'),
      },
    },
    ProjectDeleted: {
      type: 'object',
      required: ['message', 'project_id'],
      properties: { message: { type: 'string' }, project_id: uuid },
    },
    File: {
      type: 'object',
      required: [
        'filename',
        'project_id',
        'size_bytes',
        'content_type',
        'metadata',
        'storage_path',
        'created_date',
        'updated_date',
        'etag',
        'revision',
        'sha256',
      ],
      properties: {
        ...fileFields,
        content_type: { type: 'string', const: 'text/markdown' },
        storage_path: { type: 'string', description: '<scheme>://<bucket_name>/<filename>' },
        created_date: dateTime,
      },
    },
    FileUpdate: {
      type: 'object',
      required: Object.keys(fileFields),
      properties: fileFields,
    },
    FileList: {
      type: 'object',
      required: ['files', 'total_count', 'total_size_bytes'],
      properties: {
        files: { type: 'array', items: ref('schemas/File') },
        total_count: { type: 'integer', minimum: 0 },
        total_size_bytes: { type: 'integer', minimum: 0 },
        next_cursor: { type: ['string', 'null'], description: 'On servers with paging.' },
      },
    },
    UploadForm: {
      type: 'object',
      required: ['file'],
      properties: {
        file: { type: 'string', contentMediaType: 'text/markdown', description: 'The content.' },
        metadata: { type: 'string', description: 'A JSON object, as text.' },
        sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      },
    },
    MetadataUpdate: {
      type: 'object',
      required: ['metadata'],
      properties: { metadata },
    },
    ErrorMessage: {
      type: 'object',
      required: ['detail'],
      properties: { detail: { type: 'string' } },
    },
    ValidationIssue: {
      type: 'object',
      required: ['loc', 'msg', 'type'],
      properties: {
        loc: { type: 'array', items: { type: ['string', 'integer'] } },
        msg: { type: 'string' },
        type: { type: 'string' },
      },
    },
    ValidationError: {
      type: 'object',
      required: ['detail'],
      properties: { detail: { type: 'array', items: ref('schemas/ValidationIssue') } },
    },
    AnyError: {
      type: 'object',
      required: ['detail'],
      properties: {
        detail: {
          oneOf: [{ type: 'string' }, { type: 'array', items: ref('schemas/ValidationIssue') }],
        },
      },
    },
    Health: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } },
    Readiness: { type: 'object', required: ['status'], properties: { status: { const: 'ready' } } },
  },
  parameters: {
    ProjectId: { name: 'project_id', in: 'path', required: true, schema: uuid },
    Filename: {
      name: 'filename',
      in: 'path',
      required: true,
      description: 'One path segment, percent-encoded as UTF-8 (`/` in a folder name is `%2F`).',
      schema: { type: 'string' },
    },
    Limit: { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
    Cursor: { name: 'cursor', in: 'query', schema: { type: 'string' } },
    IfMatch: { name: 'If-Match', in: 'header', schema: { type: 'string' } },
    IfNoneMatch: { name: 'If-None-Match', in: 'header', schema: { type: 'string' } },
    IfModifiedSince: { name: 'If-Modified-Since', in: 'header', schema: { type: 'string' } },
    IfUnmodifiedSince: { name: 'If-Unmodified-Since', in: 'header', schema: { type: 'string' } },
    Range: { name: 'Range', in: 'header', schema: { type: 'string', example: 'bytes=0-99' } },
    IfRange: { name: 'If-Range', in: 'header', schema: { type: 'string' } },
    ContentDigest: {
      name: 'Content-Digest',
      in: 'header',
      schema: { type: 'string', example: 'sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:' },
    },
    ReprDigest: { name: 'Repr-Digest', in: 'header', schema: { type: 'string' } },
  },
  headers: {
    'X-RateLimit-Limit': { description: 'Requests per hour of the key.', schema: { type: 'integer' } },
    'X-RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'integer' } },
    'X-RateLimit-Reset': { description: 'End of the window, Unix seconds.', schema: { type: 'integer' } },
    'X-Request-Id': { description: 'The request id, also in the server log.', schema: { type: 'string' } },
    'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } },
    ETag: { description: 'Strong entity tag.', schema: { type: 'string' } },
    'Last-Modified': { description: 'updated_date as an HTTP date.', schema: { type: 'string' } },
    'Cache-Control': { schema: { type: 'string' } },
    'Content-Disposition': { schema: { type: 'string' } },
    'Content-Range': { schema: { type: 'string' } },
    'Accept-Ranges': { schema: { type: 'string', const: 'bytes' } },
    'Repr-Digest': { description: 'sha-256 of the whole content (RFC 9530).', schema: { type: 'string' } },
    'X-File-Size': { description: 'The whole size in bytes.', schema: { type: 'integer' } },
    'X-Created-Date': { schema: { type: 'string', format: 'date-time' } },
    'X-Updated-Date': { schema: { type: 'string', format: 'date-time' } },
  },
  responses: {},
};

const markdown = { 'text/markdown': { schema: { type: 'string', contentMediaType: 'text/markdown' } } };
const errorResponse = (description, schema, headers = RATE) => ({
  description,
  headers,
  content: json(ref(`schemas/${schema}`)),
});
components.responses = {
  Content: { description: 'The content', headers: DOWNLOAD_HEADERS, content: markdown },
  PartialContent: {
    description: 'One byte range of the content',
    headers: { ...DOWNLOAD_HEADERS, 'Content-Range': header('Content-Range') },
    content: markdown,
  },
  NotModified: { description: 'Not modified (no body)', headers: { ...RATE, ...FILE_VALIDATORS } },
  BadRequest: errorResponse('Malformed request', 'AnyError'),
  Unauthorized: errorResponse('Missing or invalid API key', 'ErrorMessage', {
    'WWW-Authenticate': { schema: { type: 'string' } },
    'X-Request-Id': header('X-Request-Id'),
  }),
  Forbidden: errorResponse('Another account’s project, or the default project on delete', 'ErrorMessage'),
  NotFound: errorResponse('No such project or file', 'ErrorMessage'),
  Conflict: errorResponse('The name is taken', 'ErrorMessage'),
  PreconditionFailed: errorResponse('A precondition failed; nothing changed', 'ErrorMessage', {
    ...RATE,
    ETag: header('ETag'),
  }),
  PayloadTooLarge: errorResponse('The body or content is too large', 'ErrorMessage'),
  UnsupportedMediaType: errorResponse('Wrong media type or file extension', 'ErrorMessage'),
  RangeNotSatisfiable: errorResponse('The range starts beyond the content', 'ErrorMessage', {
    ...RATE,
    'Content-Range': header('Content-Range'),
  }),
  Invalid: errorResponse('A field breaks a rule', 'ValidationError'),
  PreconditionRequired: errorResponse('The project requires If-Match for this write', 'ErrorMessage'),
  RateLimited: errorResponse('The hourly budget is spent', 'ErrorMessage', {
    ...RATE,
    'Retry-After': header('Retry-After'),
  }),
  ServerError: errorResponse('Server failure', 'ErrorMessage'),
  Unavailable: errorResponse('Not ready, or still starting', 'ErrorMessage', {
    'Retry-After': header('Retry-After'),
  }),
};

const document = {
  openapi: '3.1.0',
  info: {
    title: 'mdstore',
    version: '1',
    license: { name: 'MIT', identifier: 'MIT' },
    description:
      'Markdown and MDX files with JSON metadata in isolated projects.\n\n' +
      '**Interim document.** Written by hand for the SDK generator (`npm run generate:client`) until the ' +
      'server generates its own from the schemas it validates with and serves it at `GET /openapi.json`; ' +
      'from then on that document is the generator’s input and this file is replaced by it.',
  },
  'x-mdstore-interim': true,
  servers: [{ url: 'http://127.0.0.1:8080', description: 'npm start' }],
  security: [{ apiKey: [] }],
  tags: [
    { name: 'Projects', description: 'Isolated workspaces' },
    { name: 'Files', description: 'Markdown and MDX files with metadata' },
    { name: 'Operations', description: 'Health and readiness (no key)' },
  ],
  paths: operations,
  components,
};

writeFileSync(new URL('../openapi.json', import.meta.url), `${JSON.stringify(document, null, 2)}\n`);
