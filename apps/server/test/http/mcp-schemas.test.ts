import { readdirSync, readFileSync } from 'node:fs';
import { OutlineTooLargeError, PreconditionRequiredError } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { API_VERSION, openApiDocument } from '../../src/http/api/openapi.js';
import { ROUTES } from '../../src/http/api/routes-table.js';
import { toolError } from '../../src/mcp/results.js';
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
const output = (name: string): Json => {
  const found = TOOLS.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found.outputSchema;
};
const without = ({ ...properties }: Json, name: string) => {
  delete properties[name];
  return properties;
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

describe('MCP tool output schemas', () => {
  it("are the OpenAPI document's answer schemas, without bucket_name and storage_path", () => {
    const file = without(component('File').properties, 'storage_path');
    for (const name of ['create_file', 'restore_revision', 'move_file']) {
      // A move's answer adds what `rewrite_links` rewrote (extensions §9), as the API's MovedFile does.
      const answer =
        name === 'move_file' ? { ...file, rewritten: component('MovedFile').properties.rewritten } : file;
      expect(output(name).properties, name).toEqual(answer);
      expect(output(name).additionalProperties, name).toBe(false);
      expect(output(name).required, name).toEqual(
        component('File').required.filter((p: string) => p !== 'storage_path'),
      );
    }
    expect(output('list_files').properties.files.items.properties).toEqual(file);
    expect(output('search').properties.results.items.properties.file.properties).toEqual(file);
    expect(output('edit_file').properties).toMatchObject({
      ...file,
      diff: component('FileEdited').properties.diff,
      merged: component('FileEdited').properties.merged,
    });
    // The answer of PUT …/content (with `merged` of a merge_base write, extensions §13).
    expect(output('write_file').properties).toEqual(component('FileContentUpdate').properties);
    expect(output('outline')).toEqual(component('Outline'));
    // The document refers to its components where the tools' schemas inline them.
    expect(output('list_revisions').properties.revisions.items).toEqual(component('Revision'));
    expect(output('list_revisions').properties.next_cursor).toEqual(
      component('RevisionList').properties.next_cursor,
    );
    expect(output('list_projects').properties.projects.items.properties).toEqual({
      ...without(component('Project').properties, 'bucket_name'),
      settings: component('ProjectSettings'),
    });
    for (const t of TOOLS) {
      expect(t.outputSchema.type, t.name).toBe('object');
      expect(t.outputSchema.$schema, t.name).toBeUndefined();
    }
  });
});

describe('MCP tool errors', () => {
  const tool = TOOLS[0]!;
  const logger = { error: () => {} };
  const said = (error: unknown) => {
    const result = toolError(error, tool, logger);
    expect(result.isError).toBe(true);
    return JSON.parse((result.content[0] as { text: string }).text) as { status: number; detail: string };
  };

  it('name the tool arguments, not the HTTP header or query parameters, and keep the status', () => {
    const required = said(new PreconditionRequiredError());
    expect(required.status).toBe(428);
    expect(required.detail).toContain('pass `if_match`');
    expect(required.detail).not.toMatch(/If-Match|ETag/);
    const outline = said(new OutlineTooLargeError());
    expect(outline.status).toBe(413);
    expect(outline.detail).toContain("read_file's `lines` or `section`");
    expect(outline.detail).not.toContain('?');
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
