import { toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import { API_ERRORS, errors, PATH_ERRORS } from './answers.js';
import { CONVERSION } from './json-schema.js';
import { PATH_PARAMETERS, RATE_LIMIT_HEADERS, REQUEST_HEADERS, RESPONSE_HEADERS } from './parameters.js';
import type { Answer, DefinedRoute, RouteDescription, Schema } from './route.js';
import { ROUTES } from './routes-table.js';
import { COMPONENTS } from './schemas.js';

/**
 * The OpenAPI 3.1 document of the service, generated from the route table: every path, operation,
 * parameter, body and answer comes from a `defineRoute` description, every schema from valibot through
 * `@valibot/to-json-schema` (JSON Schema 2020-12, the dialect of OpenAPI 3.1).
 */

type Json = Record<string, unknown>;

const DEFS = '#/$defs/';
const SCHEMAS = '#/components/schemas/';

const COMPONENT_OF = new Map<unknown, string>(Object.entries(COMPONENTS).map(([name, s]) => [s, name]));

/** A valibot schema as JSON Schema, named components referenced as `#/components/schemas/<name>`. */
function jsonSchema(schema: Schema): Json {
  const name = COMPONENT_OF.get(schema);
  if (name) return { $ref: SCHEMAS + name };
  const converted = toJsonSchema(schema, { ...CONVERSION, definitions: COMPONENTS }) as Json;
  delete converted.$schema;
  delete converted.$defs;
  return relinked(converted);
}

function componentSchemas(): Json {
  const defs = toJsonSchemaDefs(COMPONENTS, CONVERSION) as Json;
  return relinked(defs);
}

/** `#/$defs/X` (the converter's references) → `#/components/schemas/X`. */
function relinked<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replaceAll(`"${DEFS}`, `"${SCHEMAS}`)) as T;
}

/** `/api/projects/:project_id` → `/api/projects/{project_id}` and its path parameter names. */
export function openApiPath(template: string): { path: string; names: string[] } {
  const names: string[] = [];
  const path = template.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_m, name: string) => {
    if (!PATH_PARAMETERS[name]) throw new Error(`Route ${template}: no PATH_PARAMETERS entry for :${name}`);
    names.push(name);
    return `{${name}}`;
  });
  return { path, names };
}

function parameters(route: RouteDescription, names: string[]): Json[] {
  const list: Json[] = names.map((name) => ({
    $ref: `#/components/parameters/${PATH_PARAMETERS[name]!.component}`,
  }));
  for (const [name, query] of Object.entries(route.query ?? {})) {
    const schema = jsonSchema(query.schema);
    list.push({
      name,
      in: 'query',
      description: query.description,
      required: query.required ?? false,
      schema: query.repeated ? { type: 'array', items: schema } : schema,
      ...(query.repeated && { style: 'form', explode: true }),
    });
  }
  for (const name of route.headers ?? []) {
    const { description, ...schema } = jsonSchema(REQUEST_HEADERS[name]);
    list.push({ name, in: 'header', required: false, description, schema });
  }
  return list;
}

function requestBody(route: RouteDescription): Json | undefined {
  const { body } = route;
  if (!body) return undefined;
  const types = [body.contentType, ...(body.otherContentTypes ?? [])];
  const schemaOf = (type: string) =>
    body.schema ? jsonSchema(body.schema) : { type: 'string', contentMediaType: type };
  return {
    required: true,
    ...(body.description && { description: body.description }),
    content: Object.fromEntries(types.map((type) => [type, { schema: schemaOf(type) }])),
  };
}

/** Whether an answer of this route always carries the rate-limit headers (set once the key is known). */
const hasRateLimitHeaders = (route: RouteDescription, status: number) =>
  route.auth === 'apiKey' && status !== 401 && status < 500;

function answer(route: RouteDescription, status: number, found: Answer, withBody: boolean): Json {
  const headers: Json = {};
  const names = [
    'X-Request-Id',
    ...(hasRateLimitHeaders(route, status) ? RATE_LIMIT_HEADERS : []),
    ...(found.headers ?? []),
  ];
  for (const name of names) headers[name] = { $ref: `#/components/headers/${name}` };
  // Optional ones are written out: the components say `required: true`.
  for (const name of found.optionalHeaders ?? []) headers[name] = { ...headerObject(name), required: false };
  const bodies = found.body ? [found.body, ...(found.otherBodies ?? [])] : [];
  const content =
    withBody && bodies.length > 0
      ? Object.fromEntries(
          bodies.map((body) => [
            body.contentType,
            {
              schema: body.schema
                ? jsonSchema(body.schema)
                : { type: 'string', contentMediaType: body.contentType },
            },
          ]),
        )
      : undefined;
  return { description: found.description, headers, ...(content && { content }) };
}

function operation(route: RouteDescription, names: string[], head: boolean): Json {
  const shared = { ...(route.auth === 'apiKey' ? API_ERRORS : {}), ...(names.length > 0 ? PATH_ERRORS : {}) };
  // A route that needs more than `read` is refused (403) to a key of a lesser role (extensions §8).
  const refusedByRole = route.role !== null && route.role !== 'read' ? errors(403) : {};
  const all = { ...shared, ...refusedByRole, ...route.answers };
  const responses: Json = {};
  for (const [status, found] of Object.entries(all)) {
    responses[status] = answer(route, Number(status), found, !head);
  }
  const body = head ? undefined : requestBody(route);
  return {
    operationId: head ? route.head!.operationId : route.operationId,
    summary: head ? route.head!.summary : route.summary,
    ...(route.description && { description: route.description }),
    tags: [...route.tags],
    security: route.auth === 'apiKey' ? [{ apiKey: [] }] : [],
    ...(route.role !== null && { 'x-mdstore-role': route.role }),
    parameters: parameters(route, names),
    ...(body && { requestBody: body }),
    responses,
  };
}

function headerObject(name: keyof typeof RESPONSE_HEADERS): Json {
  const { description, ...schema } = jsonSchema(RESPONSE_HEADERS[name]);
  // Every header an answer lists is sent with it (`required`); the conformance test checks that.
  return { description, required: true, schema };
}

/** The header components the answers refer to (`$ref`), and only those. */
function headerComponents(paths: Json): Json {
  const used = new Set(
    [...JSON.stringify(paths).matchAll(/"#\/components\/headers\/([^"]+)"/g)].map((m) => m[1]!),
  );
  const headers: Json = {};
  for (const name of Object.keys(RESPONSE_HEADERS) as (keyof typeof RESPONSE_HEADERS)[]) {
    if (used.has(name)) headers[name] = headerObject(name);
  }
  return headers;
}

function pathParameterComponents(): Json {
  const parameters: Json = {};
  for (const [name, { component, schema }] of Object.entries(PATH_PARAMETERS)) {
    const { description, ...rest } = jsonSchema(schema);
    parameters[component] = {
      name,
      in: 'path',
      required: true,
      ...(description !== undefined && { description }),
      schema: rest,
    };
  }
  return parameters;
}

export interface DocumentOptions {
  readonly version: string;
}

/** The document of these routes. Operations appear in table order, paths in order of first use. */
export function openApiDocument(routes: readonly DefinedRoute[], options: DocumentOptions): Json {
  const paths: Record<string, Json> = {};
  for (const { description: route } of routes) {
    const { path, names } = openApiPath(route.path);
    const item = paths[path] ?? {};
    paths[path] = item;
    item[route.method.toLowerCase()] = operation(route, names, false);
    if (route.head) item.head = operation(route, names, true);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'mdstore',
      version: options.version,
      license: { name: 'MIT', identifier: 'MIT' },
      description: [
        'Markdown and MDX files with JSON metadata in isolated projects.',
        '',
        'Generated by the server from its route table (`apps/server/src/http/api/`) and the valibot',
        'schemas it validates with. `/mcp` (the Model Context Protocol endpoint, JSON-RPC) is not an',
        'operation here: its tools describe themselves through MCP (`tools/list`).',
      ].join('\n'),
    },
    servers: [{ url: '/', description: 'This server' }],
    security: [{ apiKey: [] }],
    tags: [
      { name: 'Projects', description: 'Isolated workspaces' },
      { name: 'Files', description: 'Markdown and MDX files with metadata' },
      {
        name: 'Attachments',
        description: 'Images, PDFs and any other non-Markdown files notes use (extensions §12)',
      },
      { name: 'Editing', description: 'Edits and parts of a file (extensions §4)' },
      { name: 'History', description: 'Revisions, restore, move and copy (extensions §5)' },
      { name: 'Changesets', description: 'Many files in one atomic change (extensions §9)' },
      { name: 'Memory', description: "Anthropic's memory tool on the folder `memories/` (extensions §14)" },
      {
        name: 'Drafts',
        description: 'Proposed changes kept apart, reviewed and published as one changeset (extensions §13)',
      },
      { name: 'Search', description: 'Find files by words, metadata and front matter (extensions §3)' },
      {
        name: 'Links',
        description: 'The link graph: links of a file, broken links, orphans (extensions §9)',
      },
      {
        name: 'Trash',
        description: 'Deleted files kept for `settings.trash_retention_days` (extensions §5)',
      },
      { name: 'Changes', description: 'The change feed: poll, long poll or stream (extensions §7)' },
      { name: 'Access', description: 'API keys and the audit log (extensions §8; admin keys)' },
      { name: 'Webhooks', description: 'Signed deliveries of the change events (extensions §7; admin keys)' },
      { name: 'Operations', description: 'Health and readiness (no key)' },
    ].filter((tag) => routes.some((r) => r.description.tags.includes(tag.name as never))),
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key from the admin CLI.' },
      },
      schemas: componentSchemas(),
      parameters: pathParameterComponents(),
      headers: headerComponents(paths),
    },
  };
}

/** The version of the interface the document describes (not of the package). */
export const API_VERSION = '1';

let served: Json | undefined;
/** The document of `ROUTES`, made once per process (on the first `createHttpApp`'s first request). */
export function servedOpenApiDocument(): Json {
  served ??= openApiDocument(ROUTES, { version: API_VERSION });
  return served;
}
