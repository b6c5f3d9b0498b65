import { connect, type Socket } from 'node:net';
import { describe, expect } from 'vitest';
import {
  BOUNDARY,
  type HttpHarness,
  multipartBody,
  parseRawResponse,
  serverTest,
} from '../support/http-harness.js';

const test = serverTest();

function openSocket(h: HttpHarness): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: h.port }, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Waits until the core has finished with every write it started (no staged blob left behind). */
async function settled(h: HttpHarness): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if ((await h.adapters.records.listBlobIntents({ limit: 10 })).length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('a write never settled');
}

describe('clients that misbehave', () => {
  test('a client that leaves in the middle of an upload leaves no file and no hung request', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const socket = await openSocket(h);
    const head =
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="half.md"\r\n` +
      'Content-Type: text/markdown\r\n\r\n# half of it';
    socket.write(
      `POST /api/projects/${defaultProjectId}/files HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\n` +
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 1000\r\n\r\n${head}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await settled(h);
    const files = await h.fetch(`/api/projects/${defaultProjectId}/files`, { key: apiKey });
    expect(await files.json()).toMatchObject({ total_count: 0, total_size_bytes: 0 });
  });

  test('a client that leaves in the middle of a content update keeps the old content', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    await h.uploadFile(apiKey, defaultProjectId, 'keep.md', '# original');
    const socket = await openSocket(h);
    socket.write(
      `PUT /api/projects/${defaultProjectId}/files/keep.md/content HTTP/1.1\r\nHost: x\r\n` +
        `Authorization: Bearer ${apiKey}\r\nContent-Type: text/markdown\r\nContent-Length: 500\r\n\r\n# new but cut`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await settled(h);
    const download = await h.fetch(`/api/projects/${defaultProjectId}/files/keep.md`, { key: apiKey });
    expect(await download.text()).toBe('# original');
  });

  serverTest({ settings: { maxFileBytes: 4 * 1024 * 1024 } })(
    'a client that leaves in the middle of a download does not disturb the server',
    async (h) => {
      const { apiKey, defaultProjectId } = await h.account();
      await h.uploadFile(apiKey, defaultProjectId, 'big.md', 'x'.repeat(4 * 1024 * 1024));
      for (let round = 0; round < 3; round++) {
        const socket = await openSocket(h);
        socket.write(
          `GET /api/projects/${defaultProjectId}/files/big.md HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\n\r\n`,
        );
        await new Promise((resolve) => socket.once('data', resolve));
        socket.destroy();
      }
      const download = await h.fetch(`/api/projects/${defaultProjectId}/files/big.md`, { key: apiKey });
      expect((await download.arrayBuffer()).byteLength).toBe(4 * 1024 * 1024);
      expect(h.logs.filter((line) => line.level === 'error')).toEqual([]);
    },
  );

  serverTest({ app: { drainLimits: { maxBytes: 16 * 1024, maxMs: 2000 } } })(
    'an early refusal of a body too big to drain is still delivered, with Connection: close',
    async (h) => {
      const { apiKey, defaultProjectId } = await h.account();
      const socket = await openSocket(h);
      const received: Buffer[] = [];
      socket.on('data', (chunk) => received.push(chunk));
      socket.on('error', () => {});
      const closed = new Promise((resolve) => socket.on('close', resolve));
      const form = multipartBody([{ name: 'file', filename: 'huge.png', data: 'x'.repeat(400_000) }]);
      socket.write(
        `POST /api/projects/${defaultProjectId}/files HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\n` +
          `Content-Type: ${form.contentType}\r\nContent-Length: ${form.body.byteLength}\r\n\r\n`,
      );
      socket.write(form.body);
      await closed;
      const response = parseRawResponse(Buffer.concat(received).toString('utf8'));
      expect(response.status).toBe(415);
      expect(response.headers.get('connection')).toBe('close');
      expect(JSON.parse(response.body)).toHaveProperty('detail');
    },
  );

  test('concurrent uploads of one filename: exactly one 201, the others 409', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        h.upload(apiKey, defaultProjectId, [{ name: 'file', filename: 'race.md', data: `# writer ${i}` }]),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
    const winner = (await responses.find((response) => response.status === 201)!.json()) as {
      size_bytes: number;
    };
    const project = (await (
      await h.fetch(`/api/projects/${defaultProjectId}`, { key: apiKey })
    ).json()) as Record<string, unknown>;
    expect(project).toMatchObject({ file_count: 1, total_size_bytes: winner.size_bytes });
  });

  test('two metadata fields are 400; a form with many junk fields is 400, never silently truncated', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const twice = await h.upload(apiKey, defaultProjectId, [
      { name: 'metadata', data: '{"a":1}' },
      { name: 'metadata', data: '{"b":2}' },
      { name: 'file', filename: 'm.md', data: '# m' },
    ]);
    expect(twice.status).toBe(400);
    const junk = Array.from({ length: 40 }, (_, i) => ({ name: `junk${i}`, data: 'x' }));
    const crowded = await h.upload(apiKey, defaultProjectId, [
      ...junk,
      { name: 'metadata', data: '{"a":1}' },
      { name: 'file', filename: 'm.md', data: '# m' },
    ]);
    expect(crowded.status).toBe(400);
  });
});
