import { inlineContentWork } from '@mdstore/core';
import { afterAll, describe, expect, vi } from 'vitest';
import { JSON_MAX_VALUES } from '../../src/content-work/json.js';
import { PiscinaContentWork } from '../../src/content-work/pool.js';
import { INLINE_JSON_MAX_BYTES } from '../../src/http/body.js';
import { jsonParserOf } from '../../src/http/json-parser.js';
import { memoryAdapters } from '../support/adapters.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * JSON bodies above the inline bound (changesets, PATCH, `/mcp`: up to 81 MiB) are decoded and parsed in
 * the content work pool, never on the thread serving requests (issue 26, item 3): the main thread's
 * `JSON.parse` never sees such a body, while the answers are those of an inline parse (200, 400
 * `json_invalid`); a body whose value the pool would hand back at a cost per value past
 * `JSON_MAX_VALUES` is 413, and so is a large body on a server without a pool. Memory store: what is
 * tested is the HTTP edge.
 */

const MiB = 1024 * 1024;
const pool = new PiscinaContentWork({ threads: 1, deadlineMs: 60_000, memoryMb: 256, queue: 8 }, (error) => {
  throw error;
});
afterAll(() => pool.close());

const settings = { maxFileBytes: 2 * MiB };
const pooled = serverTest({
  adapters: memoryAdapters,
  settings,
  contentWork: pool,
  app: { jsonParser: jsonParserOf(pool) },
});
const poolless = serverTest({
  adapters: memoryAdapters,
  settings,
  app: { jsonParser: jsonParserOf(inlineContentWork) },
});

/**
 * What `work` gives, and how many times this thread's `JSON.parse` was given the request body `body`
 * (the server runs in this process; the answer's own parse by `fetch` is another text).
 */
async function watchingParses<T>(body: string, work: () => Promise<T>): Promise<{ value: T; large: number }> {
  const parse = vi.spyOn(JSON, 'parse');
  try {
    const value = await work();
    const large = parse.mock.calls.filter(([text]) => text === body).length;
    return { value, large };
  } finally {
    parse.mockRestore();
  }
}

async function post(h: HttpHarness, key: string, path: string, body: string, method = 'POST') {
  const response = await h.fetch(path, {
    method,
    key,
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const content = (letter: string) => `# ${letter}\n\n${`${letter} `.repeat(600_000)}\n`;

describe('JSON bodies above the inline bound', () => {
  pooled(
    'a changeset of 2.3 MiB is parsed in the pool: applied, and the main thread parsed nothing large',
    async (h) => {
      const { apiKey, defaultProjectId } = await h.account();
      const body = JSON.stringify({
        operations: [
          { op: 'put', filename: 'a.md', content: content('a') },
          { op: 'put', filename: 'b.md', content: content('b') },
        ],
      });
      expect(body.length).toBeGreaterThan(2 * INLINE_JSON_MAX_BYTES);
      const { value: answer, large } = await watchingParses(body, () =>
        post(h, apiKey, `/api/projects/${defaultProjectId}/changesets`, body),
      );
      expect(answer.status).toBe(200);
      expect((answer.body.files as { filename: string }[]).map((file) => file.filename)).toEqual([
        'a.md',
        'b.md',
      ]);
      expect(large).toBe(0);
      const stored = await h.fetch(`/api/projects/${defaultProjectId}/files/b.md`, { key: apiKey });
      expect(await stored.text()).toBe(content('b'));
    },
  );

  pooled('a PATCH of 1.2 MiB is parsed in the pool too', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    await h.uploadFile(apiKey, defaultProjectId, 'doc.md', '# Doc\n\nold\n');
    const body = JSON.stringify({ edits: [{ op: 'append', text: content('c') }] });
    const { value: answer, large } = await watchingParses(body, () =>
      post(h, apiKey, `/api/projects/${defaultProjectId}/files/doc.md`, body, 'PATCH'),
    );
    expect(answer.status).toBe(200);
    expect(large).toBe(0);
  });

  pooled('invalid JSON above the bound: 400 json_invalid, as inline', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const body = `{"operations": [${'"x", '.repeat(300_000)}`;
    const answer = await post(h, apiKey, `/api/projects/${defaultProjectId}/changesets`, body);
    expect(answer).toEqual({
      status: 400,
      body: { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] },
    });
  });

  pooled(`more than ${JSON_MAX_VALUES} values: 413, refused in the worker`, async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const body = `{"operations": [${'0,'.repeat(JSON_MAX_VALUES)}0]}`;
    const answer = await post(h, apiKey, `/api/projects/${defaultProjectId}/changesets`, body);
    expect(answer.status).toBe(413);
    expect(answer.body.detail).toBe(`Request body too large: at most ${JSON_MAX_VALUES} JSON values`);
  });

  poolless('without a pool, a body above the bound is 413 (not parsed on the serving thread)', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const body = JSON.stringify({ operations: [{ op: 'put', filename: 'a.md', content: content('a') }] });
    const { value: answer, large } = await watchingParses(body, () =>
      post(h, apiKey, `/api/projects/${defaultProjectId}/changesets`, body),
    );
    expect(answer.status).toBe(413);
    expect(answer.body.detail).toBe(
      `Request body too large: the maximum without a content work pool is ${INLINE_JSON_MAX_BYTES} bytes`,
    );
    expect(large).toBe(0);
  });
});
