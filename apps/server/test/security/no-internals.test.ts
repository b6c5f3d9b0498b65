import { describe, expect } from 'vitest';
import {
  exchange,
  expectHealthy,
  expectNoInternals,
  type HostileContext,
  head,
  hostileTest,
  type InspectableAdapters,
} from '../hostile/support.js';
import { BOUNDARY } from '../support/http-harness.js';

/** A records port whose file listing fails the way a broken database would, internals and all. */
function failingFileListing(adapters: InspectableAdapters): InspectableAdapters {
  const records = new Proxy(adapters.records, {
    get(target, property, receiver) {
      if (property === 'listFiles') {
        return async () => {
          const error = new Error(
            'SQLITE_CORRUPT: database disk image is malformed while running SELECT * FROM files ' +
              `WHERE project_id = ? (${adapters.dir}/mdstore.db)`,
          );
          (error as NodeJS.ErrnoException).code = 'SQLITE_CORRUPT';
          throw error;
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { ...adapters, records };
}

const test = hostileTest({ wrap: failingFileListing });

/** Requests the parser, the router, the validators and the store all refuse in their own way. */
function corpus(ctx: HostileContext): Array<[string, string | Buffer | Array<string | Buffer>]> {
  const project = `/api/projects/${ctx.account.defaultProjectId}`;
  const json = (method: string, path: string, body: string) => [
    head(ctx, method, path, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    }),
    body,
  ];
  return [
    ['not HTTP at all', 'GARBAGE\r\n\r\n'],
    ['binary noise', Buffer.from([0x16, 0x03, 0x01, 0x00, 0xff, 0x00, 0x0d, 0x0a, 0x0d, 0x0a])],
    ['bad percent-encoding', head(ctx, 'GET', '/api/projects/%E0%A4%A')],
    ['bad percent-encoding in a filename', head(ctx, 'GET', `${project}/files/%FF%FE.md`)],
    ['malformed uuid', head(ctx, 'GET', '/api/projects/not-a-uuid')],
    ['unknown route', head(ctx, 'GET', '/nope/../../etc/passwd')],
    ['method not allowed', head(ctx, 'PATCH', '/api/projects')],
    ['TRACE', head(ctx, 'TRACE', '/api/projects')],
    ['CONNECT', 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n'],
    [
      'absolute-form target',
      `GET http://evil.example/api/projects HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\nAuthorization: Bearer ${ctx.account.apiKey}\r\n\r\n`,
    ],
    ['HTTP/1.0 without Host', 'GET /api/projects HTTP/1.0\r\n\r\n'],
    [
      'control byte in a header',
      Buffer.from(`GET /api/projects HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n`, 'latin1'),
    ],
    [
      'bad chunk size',
      [
        head(ctx, 'POST', '/api/projects', {
          'Content-Type': 'application/json',
          'Transfer-Encoding': 'chunked',
        }),
        'zz\r\n{}\r\n0\r\n\r\n',
      ],
    ],
    ['malformed JSON', json('POST', '/api/projects', '{"name":')],
    ['JSON that is not an object', json('POST', '/api/projects', '[1,2,3]')],
    [
      'JSON with invalid UTF-8',
      [
        head(ctx, 'POST', '/api/projects', { 'Content-Type': 'application/json', 'Content-Length': 12 }),
        Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d, 0x20, 0x20]),
      ],
    ],
    [
      'wrong content type',
      json('PUT', project, '{}').map((piece) => piece.replace('application/json', 'text/xml')),
    ],
    ['a default project delete', head(ctx, 'DELETE', project)],
    [
      'content too large',
      [
        head(ctx, 'PUT', `${project}/files/none.md/content`, {
          'Content-Type': 'text/markdown',
          'Content-Length': 4096,
        }),
        'x'.repeat(4096),
      ],
    ],
    [
      'Expect: 100-continue',
      [
        head(ctx, 'POST', `${project}/files`, {
          'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
          'Content-Length': 10,
          Expect: '100-continue',
        }),
        '0123456789',
      ],
    ],
    ['unknown Expect', head(ctx, 'GET', project, { Expect: 'teapot' })],
    ['a 20 KB URL', head(ctx, 'GET', `/api/projects/${'a'.repeat(20_000)}`)],
    ['a database failure', head(ctx, 'GET', `${project}/files`)],
  ];
}

describe('error responses reveal no internals', () => {
  test('no stack trace, path or SQL in any response of the hostile corpus', async (ctx) => {
    const statuses: Record<string, number | undefined> = {};
    for (const [name, request] of corpus(ctx)) {
      const result = await exchange(ctx, request, { waitMs: 5000 });
      statuses[name] = result.response?.status;
      expectNoInternals(result.text);
      if (result.response && result.response.status >= 400 && result.response.body) {
        expect(JSON.parse(result.response.body), name).toHaveProperty('detail');
      }
    }
    expect(statuses['a database failure']).toBe(500);
    expect(statuses['not HTTP at all']).toBe(400);
    expect(statuses['malformed uuid']).toBe(422);
    expect(statuses['content too large']).toBe(404);
    expect(statuses['a 20 KB URL']).toBe(431);
    expect(statuses['unknown Expect']).toBe(417);
    expect(statuses.CONNECT).toBe(405);
    for (const [name, status] of Object.entries(statuses)) {
      if (name !== 'a database failure') expect(status ?? 0, name).toBeLessThan(500);
    }
    // The failure itself went to the log, for the operator.
    const logged = JSON.stringify(ctx.h.logs.filter((line) => line.level === 'error'));
    expect(logged).toContain('SQLITE_CORRUPT');
    await expectHealthy(ctx);
  });
});
