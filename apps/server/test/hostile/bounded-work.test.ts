import { markdownParserCalls } from '@mdstore/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect } from 'vitest';
import { call, expectHealthy, type HostileContext, hostileTest } from './support.js';

/**
 * Issue 22, findings 1–4 over HTTP (and MCP): the inputs that froze the server are answered with the
 * documented status, their work refused before it starts (the core's parser counter does not move), the
 * server healthy afterwards. No clock is read: a loaded machine made the old 2 s guard fail a correct
 * server (speed lives in `npm run bench`, scenario `stall`).
 */

const MiB = 1024 * 1024;
const test = hostileTest({ settings: { maxFileBytes: 10 * MiB } });

const filePath = (ctx: HostileContext, filename: string) =>
  `/api/projects/${ctx.account.defaultProjectId}/files/${encodeURIComponent(filename)}`;

async function upload(ctx: HostileContext, filename: string, content: string) {
  await ctx.h.uploadFile(ctx.account.apiKey, ctx.account.defaultProjectId, filename, content);
}

function patch(ctx: HostileContext, filename: string, body: unknown) {
  return call(ctx, filePath(ctx, filename), {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const replaceAll = (length: number) => ({
  edits: [{ op: 'replace', old: 'x', new: 'y'.repeat(length), count: 'all' }],
  dry_run: true,
});

async function mcpClient(ctx: HostileContext) {
  const client = new Client({ name: 'mdstore-hostile', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${ctx.h.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${ctx.account.apiKey}` } },
    }),
  );
  return client;
}

describe('findings 1 and 2: replace count "all" past the content limit', () => {
  test('100 000 × "x" replaced by 5 000 and 6 000 characters: 413 over HTTP, the server healthy', async (ctx) => {
    await upload(ctx, 'x.md', 'x'.repeat(100_000));
    for (const length of [5_000, 6_000]) {
      const refused = await patch(ctx, 'x.md', replaceAll(length));
      expect(refused.status).toBe(413);
      expect(JSON.parse(refused.text)).toEqual({
        detail: `File too large: the maximum size is ${10 * MiB} bytes`,
      });
    }
    // Eight at once, as in the report: every one refused, the server answering meanwhile.
    const all = await Promise.all(Array.from({ length: 8 }, () => patch(ctx, 'x.md', replaceAll(5_000))));
    expect(all.map((response) => response.status)).toEqual(Array(8).fill(413));
    await expectHealthy(ctx);
  });

  test('the same edit as an MCP tool is a tool error with status 413, not a 500', async (ctx) => {
    await upload(ctx, 'x.md', 'x'.repeat(100_000));
    const client = await mcpClient(ctx);
    try {
      const result = (await client.callTool({
        name: 'edit_file',
        arguments: {
          project_id: ctx.account.defaultProjectId,
          filename: 'x.md',
          edits: replaceAll(6_000).edits,
          dry_run: true,
        },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      // A tool error is JSON text (no structuredContent: see mcp/results.ts).
      expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ status: 413 });
    } finally {
      await client.close();
    }
    await expectHealthy(ctx);
  });
});

describe('finding 3: deeply nested MDX expressions', () => {
  test('{×5000 1 }×5000: outline, ?section= and a section edit answer, without micromark', async (ctx) => {
    const content = `# Top\n\n${'{'.repeat(5000)}1${'}'.repeat(5000)}\n\n## Under\n\nbody\n`;
    await upload(ctx, 'n.mdx', content);
    const before = markdownParserCalls();
    const outline = await call(ctx, `${filePath(ctx, 'n.mdx')}/outline`);
    expect(outline.status).toBe(200);
    expect(JSON.parse(outline.text).headings.map((h: { text: string }) => h.text)).toEqual(['Top', 'Under']);
    const section = await call(ctx, `${filePath(ctx, 'n.mdx')}?section=Top&section=Under`);
    expect(section.status).toBe(200);
    expect(section.text).toBe('## Under\n\nbody\n');
    const edited = await patch(ctx, 'n.mdx', {
      edits: [{ op: 'append', section: 'Under', text: 'more\n' }],
      dry_run: true,
    });
    expect(edited.status).toBe(200);
    expect(markdownParserCalls().micromark).toBe(before.micromark);
    await expectHealthy(ctx);
  });
});

describe('finding 4: an outline of 300 000 headings', () => {
  test('2.9 MB of headings: outline 413, ?section= 409 work_budget, both before any parse', async (ctx) => {
    const content = Array.from({ length: 300_000 }, (_, index) => `## h${index}\n`)
      .join('')
      .slice(0, 2_900_000);
    await upload(ctx, 'h.md', content);
    const before = markdownParserCalls();
    const outline = await call(ctx, `${filePath(ctx, 'h.md')}/outline`);
    expect(outline.status).toBe(413);
    expect(JSON.parse(outline.text).detail).toMatch(/^File too large for an outline/);
    const section = await call(ctx, `${filePath(ctx, 'h.md')}?section=h7`);
    expect(section.status).toBe(409);
    expect(JSON.parse(section.text).detail).toMatchObject([
      { loc: ['query', 'section'], type: 'work_budget' },
    ]);
    expect(markdownParserCalls()).toEqual(before);
    await expectHealthy(ctx);
  });
});
