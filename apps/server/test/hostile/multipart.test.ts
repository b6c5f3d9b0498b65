import { describe, expect } from 'vitest';
import { BOUNDARY, multipartBody } from '../support/http-harness.js';
import {
  exchange,
  expectHealthy,
  type HostileContext,
  head,
  hostileTest,
  listedFiles,
  openSocket,
  settled,
  sleep,
  tempFiles,
} from './support.js';

const test = hostileTest();
/** Content stored in the blob store, so that a cut upload really leaves a temp file to clean up. */
const blobTest = hostileTest({ settings: { inlineMaxBytes: 0 } });

const uploadPath = (ctx: HostileContext) => `/api/projects/${ctx.account.defaultProjectId}/files`;

/** A raw upload request: the head with `contentType`/`Content-Length`, then `body`. */
function rawUpload(ctx: HostileContext, body: Buffer | string, extra: Record<string, string | number> = {}) {
  const bytes = Buffer.from(body);
  return [
    head(ctx, 'POST', uploadPath(ctx), {
      'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
      'Content-Length': bytes.byteLength,
      ...extra,
    }),
    bytes,
  ];
}

const filePartHead = (filename: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
  'Content-Type: text/markdown\r\n\r\n';

async function expectNothingStored(ctx: HostileContext): Promise<void> {
  await settled(ctx);
  expect(await listedFiles(ctx)).toMatchObject({ files: [], total_count: 0, total_size_bytes: 0 });
  expect(await tempFiles(ctx)).toEqual([]);
}

describe('hostile multipart uploads', () => {
  blobTest(
    'a body that ends in the middle of a part, then a closed socket: nothing stored, no temp file',
    async (ctx) => {
      const socket = await openSocket(ctx.h.port);
      socket.on('error', () => {});
      socket.write(
        head(ctx, 'POST', uploadPath(ctx), {
          'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
          'Content-Length': 2000,
        }),
      );
      socket.write(`${filePartHead('cut.md')}# the start of a file\n${'text '.repeat(100)}`);
      // Wait until the blob store has started its temp file, so the cut really lands mid-write.
      for (let i = 0; i < 200 && (await tempFiles(ctx)).length === 0; i++) await sleep(5);
      expect(await tempFiles(ctx)).toHaveLength(1);
      socket.destroy();
      await expectNothingStored(ctx);
      await expectHealthy(ctx);
    },
  );

  test('multipart/form-data without a boundary is 400', async (ctx) => {
    const body = multipartBody([{ name: 'file', filename: 'a.md', data: '# a' }]).body;
    const { response } = await exchange(
      ctx,
      rawUpload(ctx, body, { 'Content-Type': 'multipart/form-data' }).map(String),
    );
    expect(response?.status).toBe(400);
    expect(JSON.parse(response!.body)).toHaveProperty('detail');
    await expectNothingStored(ctx);
    await expectHealthy(ctx);
  });

  test('thousands of parts are refused with 400 and nothing is stored', async (ctx) => {
    const junk = Array.from({ length: 5000 }, (_, i) => ({ name: `junk${i}`, data: 'x' }));
    const form = multipartBody([...junk, { name: 'file', filename: 'many.md', data: '# many' }]);
    const { response } = await exchange(ctx, rawUpload(ctx, form.body));
    expect(response?.status).toBe(400);
    // Parts sent as files count too (busboy's `files` limit would drop them silently).
    const fileParts = Array.from({ length: 3000 }, (_, i) => ({
      name: `f${i}`,
      filename: `f${i}.md`,
      data: 'x',
    }));
    const asFiles = multipartBody([...fileParts, { name: 'file', filename: 'many.md', data: '# many' }]);
    expect((await exchange(ctx, rawUpload(ctx, asFiles.body))).response?.status).toBe(400);
    await expectNothingStored(ctx);
    await expectHealthy(ctx);
  });

  test('malformed part headers are 400', async (ctx) => {
    const bodies = [
      // A header line without a colon.
      `--${BOUNDARY}\r\nthis is not a header\r\n\r\n# x\r\n--${BOUNDARY}--\r\n`,
      // A part without Content-Disposition.
      `--${BOUNDARY}\r\nContent-Type: text/markdown\r\n\r\n# x\r\n--${BOUNDARY}--\r\n`,
      // Content-Disposition that is not form-data.
      `--${BOUNDARY}\r\nContent-Disposition: attachment; filename="x.md"\r\n\r\n# x\r\n--${BOUNDARY}--\r\n`,
      // A header block that never ends (far beyond any sane header size).
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="x.md"\r\nX-Junk: ${'j'.repeat(100_000)}`,
      // A disposition with an unterminated quoted filename.
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="x.md\r\n\r\n# x\r\n--${BOUNDARY}--\r\n`,
      // No closing boundary at all.
      `${filePartHead('x.md')}# x\r\n`,
      // Garbage before the first boundary and nothing else.
      'hello, this is not multipart',
    ];
    for (const body of bodies) {
      const { response } = await exchange(ctx, rawUpload(ctx, body));
      expect(response?.status, body.slice(0, 80)).toBe(400);
    }
    await expectNothingStored(ctx);
    await expectHealthy(ctx);
  });

  test('a second file part is 400 and neither file is stored', async (ctx) => {
    const form = multipartBody([
      { name: 'file', filename: 'one.md', data: '# one' },
      { name: 'file', filename: 'two.md', data: '# two' },
    ]);
    const { response } = await exchange(ctx, rawUpload(ctx, form.body));
    expect(response?.status).toBe(400);
    expect(response?.body).toContain('file');
    await expectNothingStored(ctx);
    await expectHealthy(ctx);
  });
});
