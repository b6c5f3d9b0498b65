import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openAiEmbedder } from '../../src/embeddings/openai.js';

/**
 * The OpenAI-compatible embedder (extensions §15) against a stub `/v1/embeddings` on loopback: what it
 * sends, how it reads the answer, and every failure thrown (never a silent wrong vector).
 */
type Handler = (body: { model: string; input: string[] }, req: IncomingMessage, res: ServerResponse) => void;

let server: Server | undefined;
const seen: {
  body: { model: string; input: string[] };
  headers: IncomingMessage['headers'];
  url?: string;
}[] = [];

async function stub(handler: Handler): Promise<string> {
  seen.length = 0;
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      seen.push({ body, headers: req.headers, url: req.url });
      handler(body, req, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

const answer = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** A vector per text, out of order (the `index` says where each goes). */
const vectors: Handler = (body, _req, res) =>
  answer(res, 200, {
    object: 'list',
    data: body.input
      .map((text, index) => ({ object: 'embedding', index, embedding: [text.length, index, 1] }))
      .reverse(),
    model: body.model,
  });

describe('openAiEmbedder', () => {
  it('posts the model and texts to …/embeddings with the key, and puts the vectors back in order', async () => {
    const url = await stub(vectors);
    const embedder = openAiEmbedder({ url, model: 'text-embedding-3-small', key: 'sk-test' });
    expect(embedder.dimensions).toBe(0);
    const out = await embedder.embed({ texts: ['a', 'bbb'] });
    expect(out.map((v) => [...v])).toEqual([
      [1, 0, 1],
      [3, 1, 1],
    ]);
    expect(embedder.dimensions).toBe(3);
    expect(seen[0]).toMatchObject({
      url: '/v1/embeddings',
      body: { model: 'text-embedding-3-small', input: ['a', 'bbb'], encoding_format: 'float' },
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
    });
    // A full URL is used as given; no key, no header.
    const full = openAiEmbedder({ url: `${url}/embeddings`, model: 'm', key: null });
    await full.embed({ texts: ['x'] });
    expect(seen[1]?.url).toBe('/v1/embeddings');
    expect(seen[1]?.headers.authorization).toBeUndefined();
  });

  it('throws on an error status, quoting at most the start of the answer', async () => {
    const url = await stub((_b, _r, res) => answer(res, 429, { error: { message: 'x'.repeat(1000) } }));
    const error = await openAiEmbedder({ url, model: 'm', key: null })
      .embed({ texts: ['a'] })
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^The embeddings endpoint answered 429: /);
    expect((error as Error).message.length).toBeLessThan(260);
  });

  it('throws on a malformed answer: missing vectors, bad numbers, a change of dimension', async () => {
    let reply: unknown = { data: [] };
    const url = await stub((_b, _r, res) => answer(res, 200, reply));
    const embedder = openAiEmbedder({ url, model: 'm', key: null });
    await expect(embedder.embed({ texts: ['a'] })).rejects.toThrow(/0 vectors for 1 texts/);
    reply = { data: [{ index: 0, embedding: [1, 'two'] }] };
    await expect(embedder.embed({ texts: ['a'] })).rejects.toThrow(/malformed/);
    reply = { data: [{ index: 0, embedding: [1, 2] }] };
    await embedder.embed({ texts: ['a'] });
    reply = { data: [{ index: 0, embedding: [1, 2, 3] }] };
    await expect(embedder.embed({ texts: ['a'] })).rejects.toThrow(/3 dimensions, not 2/);
  });

  it('gives up at its deadline when the endpoint never answers', async () => {
    const url = await stub(() => {
      /* never answers */
    });
    await expect(
      openAiEmbedder({ url, model: 'm', key: null, timeoutMs: 50 }).embed({ texts: ['a'] }),
    ).rejects.toThrow();
  });

  it('an endpoint that refuses connections fails the call (the indexer retries later)', async () => {
    const url = await stub(vectors);
    server?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(openAiEmbedder({ url, model: 'm', key: null }).embed({ texts: ['a'] })).rejects.toThrow();
  });
});
