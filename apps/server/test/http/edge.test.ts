import { describe, expect } from 'vitest';
import { ROUTES } from '../../src/http/api/routes-table.js';
import { BOUNDARY, type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Hostile input at the edge (issue 22, findings 5 and 9), on every adapter set (the matrix loads this
 * suite on sqlite+fs and postgres+s3): an upload's filename that is not valid UTF-8 is 400 however it is
 * sent, and values a store cannot hold (U+0000 in a path or query value, integers beyond what a revision
 * column holds) are refused with a documented 4xx before they reach the store, never a 500.
 */
const test = serverTest({ settings: { maxFileBytes: 64 * 1024 } });

/** An upload whose `file` part carries `params` (raw bytes) after `name="file"; `. */
async function uploadWithParams(h: HttpHarness, key: string, projectId: string, params: Buffer | string) {
  const body = Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; `, 'latin1'),
    Buffer.from(params),
    Buffer.from(`\r\nContent-Type: text/markdown\r\n\r\n# edge\r\n--${BOUNDARY}--\r\n`),
  ]);
  const response = await h.fetch(`/api/projects/${projectId}/files`, {
    method: 'POST',
    key,
    headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const NOT_UNICODE = {
  loc: ['body', 'file'],
  msg: 'Value error, must be valid Unicode text',
  type: 'value_error',
};

const fileNames = async (h: HttpHarness, key: string, projectId: string) => {
  const response = await h.fetch(`/api/projects/${projectId}/files`, { key });
  const body = (await response.json()) as { files: Array<{ filename: string }> };
  return body.files.map((file) => file.filename).sort();
};

describe('the filename of an upload must be valid UTF-8 (finding 5)', () => {
  test('percent-encoded bytes that are not UTF-8 in filename* are 400, nothing stored', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    for (const params of [
      "filename*=UTF-8''a%FF%FEb.md",
      "filename*=utf-8''c%C3.md",
      "filename*=UTF-8''%ED%A0%80.md",
    ]) {
      const answer = await uploadWithParams(h, apiKey, defaultProjectId, params);
      expect(answer, params).toEqual({ status: 400, body: { detail: [NOT_UNICODE] } });
    }
    expect(await fileNames(h, apiKey, defaultProjectId)).toEqual([]);
  });

  test('raw bytes that are not UTF-8 in filename= are 400, nothing stored', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    for (const raw of [[0x61, 0xff, 0x62], [0xc3], [0xe2, 0x82]]) {
      const params = Buffer.concat([Buffer.from('filename="'), Buffer.from(raw), Buffer.from('.md"')]);
      const answer = await uploadWithParams(h, apiKey, defaultProjectId, params);
      expect(answer, JSON.stringify(raw)).toEqual({ status: 400, body: { detail: [NOT_UNICODE] } });
    }
    expect(await fileNames(h, apiKey, defaultProjectId)).toEqual([]);
  });

  test('valid UTF-8 names are kept exactly, U+FFFD sent as its own bytes included', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const star = await uploadWithParams(h, apiKey, defaultProjectId, "filename*=UTF-8''%C3%A9t%C3%A9.md");
    const raw = await uploadWithParams(
      h,
      apiKey,
      defaultProjectId,
      Buffer.from('filename="naïve.md"', 'utf8'),
    );
    const replacement = await uploadWithParams(
      h,
      apiKey,
      defaultProjectId,
      "filename*=UTF-8''a%EF%BF%BDb.md",
    );
    expect([star.status, raw.status, replacement.status]).toEqual([201, 201, 201]);
    expect(await fileNames(h, apiKey, defaultProjectId)).toEqual(['a\uFFFDb.md', 'naïve.md', 'été.md']);
  });
});

describe('values no store can hold are refused at the edge, never a 500 (finding 9)', () => {
  const nulIssue = (loc: string[]) => ({
    loc,
    msg: 'Value error, must not contain the character U+0000',
    type: 'value_error',
  });

  test('U+0000 in a path parameter is refused at its location: 422 for ids and numbers, 400 for a filename', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    await h.uploadFile(apiKey, defaultProjectId, 'secret.md', '# secret');
    const project = `/api/projects/${defaultProjectId}`;
    const cases: Array<[string, string, string[], number]> = [
      ['GET', `${project}/files/secret.md%00`, ['path', 'filename'], 400],
      ['DELETE', `${project}/files/secret.md%00`, ['path', 'filename'], 400],
      ['GET', `${project}/files/%00/outline`, ['path', 'filename'], 400],
      ['GET', `${project}/files/secret.md%00/revisions`, ['path', 'filename'], 400],
      ['DELETE', `${project}/trash/%00`, ['path', 'trash_id'], 422],
      ['POST', `${project}/trash/a%00b/restore`, ['path', 'trash_id'], 422],
      ['GET', `${project}/files/secret.md/revisions/%00`, ['path', 'revision'], 422],
      ['GET', `${project}/files/secret.md/revisions/1%00`, ['path', 'revision'], 422],
      ['GET', '/api/projects/%00', ['path', 'project_id'], 422],
      ['DELETE', '/api/keys/%00', ['path', 'key_id'], 422],
      ['DELETE', '/api/webhooks/%00', ['path', 'webhook_id'], 422],
    ];
    for (const [method, path, loc, status] of cases) {
      const response = await h.fetch(path, { method, key: apiKey });
      expect({ status: response.status, body: await response.json() }, `${method} ${path}`).toEqual({
        status,
        body: { detail: [nulIssue(loc)] },
      });
    }
    expect(await fileNames(h, apiKey, defaultProjectId)).toEqual(['secret.md']);
  });

  test('U+0000 in a query value is 422 at its name', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const project = `/api/projects/${defaultProjectId}`;
    for (const [path, name] of [
      [`${project}/files?prefix=a%00`, 'prefix'],
      [`${project}/files?cursor=%00`, 'cursor'],
      [`${project}/trash?cursor=%00`, 'cursor'],
      [`${project}/files/doc.md/revisions?cursor=a%00`, 'cursor'],
      [`/api/projects?cursor=x%00`, 'cursor'],
    ] as const) {
      const response = await h.fetch(path, { key: apiKey });
      expect({ status: response.status, body: await response.json() }, path).toEqual({
        status: 422,
        body: { detail: [nulIssue(['query', name])] },
      });
    }
  });

  test('a revision beyond the largest a store holds is 422 in a body, a path and a query', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    await h.uploadFile(apiKey, defaultProjectId, 'doc.md', '# one');
    const file = `/api/projects/${defaultProjectId}/files/doc.md`;
    for (const revision of [9007199254740992, 2 ** 31, 1e300]) {
      const response = await h.json(`${file}/restore`, 'POST', apiKey, { revision });
      const body = (await response.json()) as { detail: Array<{ loc: unknown; type: string }> };
      expect(response.status, String(revision)).toBe(422);
      expect(body.detail.map((issue) => issue.loc)).toEqual([['body', 'revision']]);
    }
    for (const path of [`${file}/revisions/2147483648`, `${file}/diff?from=1&to=2147483648`]) {
      const response = await h.fetch(path, { key: apiKey });
      expect(response.status, path).toBe(422);
    }
    // The largest revision a store holds is still a plain "no such revision".
    const largest = await h.json(`${file}/restore`, 'POST', apiKey, { revision: 2 ** 31 - 1 });
    expect(largest.status).toBe(404);
  });

  test('a project description holding U+0000 is 422 at its field, created or updated', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const created = await h.json('/api/projects', 'POST', apiKey, { name: 'Nul', description: 'a\u0000b' });
    const updated = await h.json(`/api/projects/${defaultProjectId}`, 'PUT', apiKey, {
      description: '\u0000',
    });
    for (const response of [created, updated]) {
      expect({ status: response.status, body: await response.json() }).toEqual({
        status: 422,
        body: { detail: [nulIssue(['body', 'description'])] },
      });
    }
    const kept = await h.json('/api/projects', 'POST', apiKey, { name: 'Tab', description: 'a\tb' });
    expect(kept.status).toBe(201);
  });
});

describe('the same values through MCP tools (finding 9)', () => {
  /** One `tools/call` over raw JSON-RPC: the tool's answer, or its error (JSON text) as `structuredContent`. */
  async function callTool(h: HttpHarness, apiKey: string, name: string, args: Record<string, unknown>) {
    const response = await h.fetch('/mcp', {
      method: 'POST',
      key: apiKey,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, arguments: args },
      }),
    });
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as {
      result: {
        isError?: boolean;
        content: Array<{ text: string }>;
        structuredContent: { status?: number; detail?: unknown };
      };
    };
    if (!result.isError) return result;
    return {
      isError: true,
      structuredContent: JSON.parse(result.content[0]!.text) as typeof result.structuredContent,
    };
  }

  test('U+0000 in a filename, prefix or cursor is a 422 tool error; in a content it is kept', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    await h.uploadFile(apiKey, defaultProjectId, 'secret.md', '# secret');
    const project_id = defaultProjectId;
    for (const [tool, args, name] of [
      ['read_file', { project_id, filename: 'secret.md\u0000' }, 'filename'],
      ['outline', { project_id, filename: '\u0000' }, 'filename'],
      ['list_files', { project_id, prefix: 'a\u0000' }, 'prefix'],
      ['list_files', { project_id, cursor: '\u0000' }, 'cursor'],
    ] as const) {
      const result = await callTool(h, apiKey, tool, args);
      expect(result.isError, tool).toBe(true);
      expect(result.structuredContent, tool).toEqual({
        status: 422,
        detail: [
          {
            loc: ['arguments', name],
            msg: 'Value error, must not contain the character U+0000',
            type: 'value_error',
          },
        ],
      });
    }
    const restore = await callTool(h, apiKey, 'restore_revision', {
      project_id,
      filename: 'secret.md',
      revision: 2 ** 31,
      if_match: '*',
    });
    expect(restore.structuredContent.status).toBe(422);
    const written = await callTool(h, apiKey, 'create_file', {
      project_id,
      filename: 'nul.md',
      content: '# a\u0000b',
    });
    expect(written.isError).toBeFalsy();
  });
});

describe('every route of the table, with hostile path values (finding 9)', () => {
  test('U+0000 or an out-of-range number in any path parameter is never a 500', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    await h.uploadFile(apiKey, defaultProjectId, 'secret.md', '# secret');
    const normal: Record<string, string> = {
      project_id: defaultProjectId,
      filename: 'secret.md',
      revision: '1',
      trash_id: 'x',
    };
    const hostile = ['%00', 'secret.md%00', 'a%00b', '9007199254740992', '2147483648', '-1', '1e300'];
    for (const route of ROUTES) {
      const { method, path } = route.description;
      const names = [...path.matchAll(/:([a-z_]+)/g)].map((match) => match[1]!);
      for (const name of names) {
        for (const value of hostile) {
          const url = path.replace(/:([a-z_]+)/g, (_m, other: string) =>
            other === name ? value : encodeURIComponent(normal[other]!),
          );
          const response = await h.fetch(url, {
            method,
            key: apiKey,
            ...(method !== 'GET' &&
              method !== 'DELETE' && {
                headers: { 'Content-Type': 'application/json', 'If-Match': '*' },
                body: JSON.stringify({ revision: 1, to: 'other.md' }),
              }),
          });
          await response.arrayBuffer();
          expect(response.status, `${method} ${url}`).toBeLessThan(500);
        }
      }
    }
  });
});
