import { createConfig, lintFromString } from '@redocly/openapi-core';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { mountRoutes } from '../../src/http/api/mount.js';
import { API_VERSION, openApiDocument, openApiPath } from '../../src/http/api/openapi.js';
import { defineRoute } from '../../src/http/api/route.js';
import { ROUTES } from '../../src/http/api/routes-table.js';
import { createHttpApp } from '../../src/http/index.js';
import { HttpHarness } from '../support/http-harness.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON
type Json = Record<string, any>;

const document = openApiDocument(ROUTES, { version: API_VERSION }) as Json;

async function lint(source: Json) {
  const config = await createConfig({
    extends: ['recommended'],
    // /healthz and /readyz have no 4XX answer to document.
    rules: { 'operation-4xx-response': 'off' },
  });
  const problems = await lintFromString({
    source: JSON.stringify(source),
    absoluteRef: 'openapi.json',
    config,
  });
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
}

/** Every route Express has on the app: `METHOD path` (the 405 fallbacks, `all`, have no method). */
function expressRoutes(app: express.Express): string[] {
  const found: string[] = [];
  const stack = (app as unknown as { router: { stack: Json[] } }).router.stack;
  for (const layer of stack) {
    const route = layer.route as { path: string; stack: { method?: string }[] } | undefined;
    if (!route) continue;
    for (const handler of route.stack) {
      if (handler.method) found.push(`${handler.method.toUpperCase()} ${route.path}`);
    }
  }
  return found;
}

describe('the OpenAPI document generated from the route table', () => {
  it("passes Redocly's recommended rules without an error or a warning (one rule off)", async () => {
    expect(await lint(document)).toEqual([]);
  });

  it('the linter does catch a broken document (the check above can fail)', async () => {
    const broken = structuredClone(document);
    broken.paths['/api/projects'].get.responses = 'none';
    broken.paths['/api/projects'].post.operationId = 'getProject';
    const problems = await lint(broken);
    expect(problems.some((p) => p.includes('struct'))).toBe(true);
    expect(problems.some((p) => p.includes('operation-operationId-unique'))).toBe(true);
  });

  it('is what GET /openapi.json serves, with no key', async () => {
    const harness = await HttpHarness.start();
    try {
      const response = await harness.fetch('/openapi.json');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(document);
    } finally {
      await harness.close();
    }
  });

  it('every Express route has a description and every description a mounted route', () => {
    const app = createHttpApp({
      store: { settings: { maxFileBytes: 1024 } } as never,
      logger: { info() {}, warn() {}, error() {} },
      trustProxy: false,
      tls: false,
    });
    // Outside the table on purpose, and never under /api: the reference itself, the web console and MCP
    // (see docs/architecture.md). Their 405 fallbacks are `app.all`, one route per method.
    const outside = new Set([
      '/openapi.json',
      '/docs',
      '/docs/redoc.standalone.js',
      '/mcp',
      '/',
      '/assets/:name',
    ]);
    const mounted = expressRoutes(app).filter((route) => !outside.has(route.split(' ')[1]!));
    const described = ROUTES.map((r) => `${r.description.method} ${r.description.path}`);
    expect(mounted.sort()).toEqual(described.sort());
    expect(mounted.filter((route) => route.includes(' /api')).length).toBeGreaterThan(10);
  });

  it('every described operation is in the document, HEAD included, with unique operationIds', () => {
    const ids: string[] = [];
    for (const item of Object.values(document.paths) as Json[]) {
      for (const operation of Object.values(item)) ids.push(operation.operationId);
    }
    const expected = ROUTES.flatMap((r) => [
      r.description.operationId,
      ...(r.description.head ? [r.description.head.operationId] : []),
    ]);
    expect(ids.sort()).toEqual(expected.sort());
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps the component names the SDK uses', () => {
    for (const name of [
      'Project',
      'ProjectSettings',
      'ProjectList',
      'ProjectCreate',
      'ProjectUpdate',
      'ProjectDeleted',
      'File',
      'FileUpdate',
      'FileList',
      'Health',
      'Readiness',
      'ErrorMessage',
      'ValidationError',
    ]) {
      expect(document.components.schemas[name], name).toBeDefined();
    }
  });

  it('the mount function refuses a route described twice, and a path parameter it does not know', () => {
    const twice = defineRoute(ROUTES[0]!.description, ROUTES[0]!.handler);
    expect(() => mountRoutes(express(), [ROUTES[0]!, twice], {} as never)).toThrow(/described twice/);
    expect(() => openApiPath('/api/things/:thing_id')).toThrow(/PATH_PARAMETERS/);
  });
});
