import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { memoryAdapters } from '../support/adapters.js';
import { HttpHarness } from '../support/http-harness.js';

/**
 * An export whose client goes away (extensions §10): the server stops reading files at once instead of
 * reading the whole project into a closed connection, and goes on serving. Contents are random text
 * (deflate cannot shrink it much), so the archive is far larger than the sockets' buffers.
 */
describe('export, client gone', () => {
  it('stops reading the project, logs no error and keeps serving', async () => {
    const opened: string[] = [];
    const harness = await HttpHarness.start({
      // Inline contents of 250 KB: 15 MB of archive, more than loopback sockets buffer on both ends.
      settings: { maxFileBytes: 1024 * 1024, inlineMaxBytes: 1024 * 1024 },
      adapters: async () => {
        const adapters = await memoryAdapters();
        const records = adapters.records;
        // Counts the contents the export opens (they are inline: read from the records store).
        const counting = new Proxy(records, {
          get(target, property, receiver) {
            if (property === 'readInlineContent')
              return (q: { contentKey: string }) => {
                opened.push(q.contentKey);
                return target.readInlineContent(q as never);
              };
            const value = Reflect.get(target, property, receiver);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        });
        return { ...adapters, records: counting };
      },
    });
    try {
      const { apiKey, defaultProjectId } = await harness.account();
      const files = 60;
      for (let i = 0; i < files; i++) {
        const text = `# ${i}\n\n${randomBytes(190 * 1024).toString('base64')}\n`;
        await harness.uploadFile(apiKey, defaultProjectId, `f-${String(i).padStart(2, '0')}.md`, text);
      }
      opened.length = 0;
      await new Promise<void>((resolve, reject) => {
        const req = request(
          `${harness.url}/api/projects/${defaultProjectId}/export`,
          { headers: { Authorization: `Bearer ${apiKey}` } },
          (res) => {
            expect(res.statusCode).toBe(200);
            res.once('data', () => {
              req.destroy();
              resolve();
            });
          },
        );
        req.on('error', () => {});
        req.end();
        setTimeout(() => reject(new Error('no data')), 10_000);
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const afterAbort = opened.length;
      expect(afterAbort).toBeGreaterThan(0);
      expect(afterAbort).toBeLessThan(files);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(opened.length).toBe(afterAbort);
      expect(harness.logs.filter((line) => line.level === 'error')).toEqual([]);
      const again = await harness.fetch(`/api/projects/${defaultProjectId}/files`, { key: apiKey });
      expect(again.status).toBe(200);
    } finally {
      await harness.close();
    }
  });
});
