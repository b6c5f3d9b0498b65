import { readFile } from 'node:fs/promises';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_INPUT,
  documentFromServer,
  documentText,
  generateTypes,
  loadDocument,
  OUTPUT,
} from '../scripts/generate.js';

describe('the OpenAPI document and the generated types', () => {
  it("openapi.json is exactly the server's document (npm run generate:client -- --from-server)", async () => {
    const committed = await readFile(DEFAULT_INPUT, 'utf8');
    expect(committed).toBe(documentText(await documentFromServer()));
  });

  it('src/generated/openapi.ts is exactly what the generator makes of the document', async () => {
    const expected = await generateTypes(await loadDocument(DEFAULT_INPUT));
    expect(await readFile(OUTPUT, 'utf8')).toBe(expected);
  });

  it("passes Redocly's recommended-strict rules", async () => {
    const source = await readFile(DEFAULT_INPUT, 'utf8');
    const config = await createConfig({
      extends: ['recommended-strict'],
      // /healthz and /readyz have no 4XX answer to document.
      rules: { 'operation-4xx-response': 'off' },
    });
    const problems = await lintFromString({ source, absoluteRef: DEFAULT_INPUT, config });
    expect(problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('the linter does catch a broken document (the check above can fail)', async () => {
    const document = JSON.parse(await readFile(DEFAULT_INPUT, 'utf8'));
    document.paths['/api/projects'].get.responses = 'none';
    document.paths['/api/projects'].post.operationId = 'getProject';
    const config = await createConfig({ extends: ['recommended-strict'] });
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: DEFAULT_INPUT,
      config,
    });
    const rules = new Set(problems.map((p) => p.ruleId));
    expect(rules).toContain('struct');
    expect(rules).toContain('operation-operationId-unique');
  });
});
