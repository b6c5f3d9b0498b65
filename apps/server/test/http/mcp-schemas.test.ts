import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_VERSION, openApiDocument } from '../../src/http/api/openapi.js';
import { ROUTES } from '../../src/http/api/routes-table.js';
import { TOOLS } from '../../src/mcp/tools.js';

/**
 * Issue 23: the MCP tools' input schemas come from the same valibot schemas as the OpenAPI document,
 * through the same conversion, and the MCP edge does not import the HTTP routes (one presenter module,
 * `src/views.ts`, serves both).
 */

// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON
type Json = Record<string, any>;

const document = openApiDocument(ROUTES, { version: API_VERSION }) as Json;
const component = (name: string): Json => document.components.schemas[name];
const tool = (name: string): Json => {
  const found = TOOLS.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found.inputSchema;
};

describe('MCP tool input schemas', () => {
  it("edit_file's edits are the OpenAPI document's FileEdit edits, every op with its fields", () => {
    const edits = tool('edit_file').properties.edits;
    expect(edits).toEqual(component('FileEdit').properties.edits);
    expect(edits.items.oneOf.map((edit: Json) => edit.properties.op)).toEqual([
      { const: 'replace' },
      { enum: ['append', 'prepend'], type: 'string' },
      { const: 'replace_section' },
      { const: 'insert' },
    ]);
    expect(tool('edit_file').properties.dry_run).toEqual(component('FileEdit').properties.dry_run);
  });

  it('the arguments that are request bodies of the API have the schemas of those bodies', () => {
    expect(tool('set_metadata').properties.metadata).toEqual(component('MetadataUpdate').properties.metadata);
    expect(tool('restore_revision').properties.revision).toEqual(
      component('RestoreRequest').properties.revision,
    );
    expect(tool('move_file').properties.to).toEqual(component('MoveRequest').properties.to);
    const { project_id: _ownArgument, ...search } = tool('search').properties;
    expect(search).toEqual(component('SearchAllRequest').properties);
  });

  it('every tool takes exactly its arguments, and requires those it cannot do without', () => {
    for (const t of TOOLS) {
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(t.inputSchema.additionalProperties, t.name).toBe(false);
      expect(t.inputSchema.$schema, t.name).toBeUndefined();
    }
    expect(tool('edit_file').required).toEqual(['project_id', 'filename', 'edits']);
    expect(tool('search').required).toEqual([]);
    expect(tool('move_file').required).toEqual(['project_id', 'filename', 'to', 'if_match']);
  });
});

describe('the MCP edge and the HTTP routes', () => {
  // endpoint.ts (the transport, owned by the Origin-check work) still takes `signalOf` and the logger
  // type from http/routes/context.ts.
  const modules = readdirSync(new URL('../../src/mcp/', import.meta.url)).filter(
    (name) => name.endsWith('.ts') && name !== 'endpoint.ts',
  );

  it.each(modules)('%s imports nothing from http/routes', (name) => {
    const source = readFileSync(new URL(`../../src/mcp/${name}`, import.meta.url), 'utf8');
    const imports = [...source.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((path) => path?.includes('http/routes'))).toEqual([]);
  });

  it('the tools answer through the presenter module the routes use', () => {
    const tools = readFileSync(new URL('../../src/mcp/tools.ts', import.meta.url), 'utf8');
    expect(tools).toContain("from '../views.js'");
    for (const route of ['editing', 'history', 'search', 'files', 'projects', 'trash']) {
      const source = readFileSync(new URL(`../../src/http/routes/${route}.ts`, import.meta.url), 'utf8');
      expect(source, route).toContain("from '../../views.js'");
    }
  });
});
