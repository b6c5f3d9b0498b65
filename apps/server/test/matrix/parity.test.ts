import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTER_SETS, skipWithoutPostgres } from '../support/adapters.js';
import { type FormPart, HttpHarness } from '../support/http-harness.js';

/**
 * One scripted session of requests, replayed on every adapter set; what the API answers must be the same
 * everywhere once what is meant to differ is masked: generated ids (numbered by first appearance),
 * timestamps, the rate-limit reset time and the `storage_path` scheme (`file` or `s3`, by design).
 */

interface Exchange {
  readonly step: string;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

const COMPARED_HEADERS = [
  'content-type',
  'content-length',
  'content-disposition',
  'x-file-size',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'retry-after',
  'allow',
  'www-authenticate',
  'etag',
  'last-modified',
  'cache-control',
  'accept-ranges',
  'repr-digest',
  'content-range',
];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ISO_DATE = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g;
const HTTP_DATE = /[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT/g;
/** A file's ETag: its id (masked, like other ids) and its revision (compared). */
const FILE_ETAG = /([0-9a-f]{32})-(\d+)/g;
/** A project's ETag: a hash of its fields, some of which (ids, dates) differ between runs. */
const PROJECT_ETAG = /(\\?")[0-9a-f]{16}(\\?")/g;

/** Masks what legitimately differs between two runs, keeping ids distinguishable from one another. */
function normalizer() {
  const ids = new Map<string, string>();
  const text = (value: string) =>
    value
      .replace(UUID, (id) => {
        if (!ids.has(id)) ids.set(id, `<id${ids.size}>`);
        return ids.get(id)!;
      })
      .replace(FILE_ETAG, (_, id: string, revision: string) => {
        if (!ids.has(id)) ids.set(id, `<id${ids.size}>`);
        return `${ids.get(id)}-${revision}`;
      })
      .replace(PROJECT_ETAG, '$1<project-etag>$2')
      .replace(ISO_DATE, '<date>')
      .replace(HTTP_DATE, '<http-date>')
      .replace(/(^|")(s3|file):\/\//g, '$1<scheme>://');
  return { text };
}

/** Records normalised exchanges. */
function recorder() {
  const exchanges: Exchange[] = [];
  const normalize = normalizer();
  const record = async (step: string, response: Response) => {
    const raw = await response.text();
    const type = response.headers.get('content-type') ?? '';
    const json = type.startsWith('application/json');
    const headers: Record<string, string> = {};
    for (const name of COMPARED_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = normalize.text(value);
    }
    // A JSON length follows the masked parts (the storage scheme): check it, compare the text instead.
    if (json && headers['content-length'] !== undefined) {
      headers['content-length'] = String(Number(headers['content-length']) === Buffer.byteLength(raw));
    }
    // The JSON text itself is compared (not a parsed copy): key order and number spelling are visible.
    const body = json ? normalize.text(raw) : raw;
    exchanges.push({ step, status: response.status, headers, body });
    return json && raw !== '' ? (JSON.parse(raw) as unknown) : raw;
  };
  return { exchanges, record };
}

const NAMES = [
  'a.md',
  'A.md',
  'Z.mdx',
  'é.md', // NFC
  'e\u0301.md', // NFD
  '中文.md',
  '\uFB00.md', // ﬀ, in the BMP above the surrogates
  '\uFF5A.md', // fullwidth z
  '😀.md', // outside the BMP: code point order puts it last, UTF-16 order before U+E000
  'space name.md',
  'quote"it\'s;%.md',
];

const METADATA = [
  '{"z":1,"a":{"nested":[1,2,{"deep":true}]},"m":null}',
  '{"big":12345678901234567890,"small":1e-7,"float":0.1,"neg":-0,"exp":1E3}',
  '{"text":"caf\\u00e9 \\ud83d\\ude00 \\"quoted\\"","empty":"","unicode":"中文"}',
];

async function session(h: HttpHarness): Promise<Exchange[]> {
  const { exchanges, record } = recorder();
  const { apiKey, defaultProjectId } = await h.account('parity');
  const key = apiKey;
  const get = (path: string) => h.fetch(path, { key });
  const pause = () => new Promise((resolve) => setTimeout(resolve, 3)); // distinct created_date per project

  await record('list projects (only the default)', await get('/api/projects'));
  const created: string[] = [];
  for (const [name, description] of [
    ['Docs', 'All docs'],
    ['docs', null],
    ['Ünïcödé 📝', ''],
  ] as const) {
    await pause();
    const project = (await record(
      `create ${name}`,
      await h.json('/api/projects', 'POST', key, { name, description }),
    )) as { id: string };
    created.push(project.id);
  }
  const [docs, lower, unicode] = created as [string, string, string];
  await record('duplicate name', await h.json('/api/projects', 'POST', key, { name: 'Docs' }));
  await record(
    'rename to a taken name',
    await h.json(`/api/projects/${lower}`, 'PUT', key, { name: 'Docs' }),
  );
  await record(
    'rename',
    await h.json(`/api/projects/${lower}`, 'PUT', key, { name: 'lower', description: 'x' }),
  );
  await record(
    'clear description',
    await h.json(`/api/projects/${lower}`, 'PUT', key, { description: null }),
  );

  for (const [index, name] of NAMES.entries()) {
    const parts: FormPart[] = [
      { name: 'file', filenameStar: name, data: `# ${name}\r\n\n${'x'.repeat(index)}` },
    ];
    const metadata = METADATA[index % METADATA.length]!;
    parts.push({ name: 'metadata', data: metadata });
    await record(`upload ${name}`, await h.upload(key, docs, parts));
  }
  await record(
    'upload with a BOM and no metadata',
    await h.upload(key, docs, [{ name: 'file', filename: 'bom.md', data: '\uFEFF# bom' }]),
  );
  await record(
    'duplicate upload',
    await h.upload(key, docs, [{ name: 'file', filename: 'a.md', data: '#' }]),
  );
  await record('list files (code point order)', await get(`/api/projects/${docs}/files`));
  await record('project counters', await get(`/api/projects/${docs}`));

  for (const name of [NAMES[4]!, NAMES[8]!, NAMES[10]!, 'bom.md']) {
    await record(`download ${name}`, await get(`/api/projects/${docs}/files/${encodeURIComponent(name)}`));
  }
  await record('download missing', await get(`/api/projects/${docs}/files/missing.md`));

  const target = `/api/projects/${docs}/files/${encodeURIComponent('é.md')}`;
  await record(
    'replace metadata',
    await h.json(target, 'PUT', key, { metadata: { only: ['this'], n: 2.5 } }),
  );
  await record('clear metadata', await h.json(target, 'PUT', key, { metadata: null }));
  await record('metadata not an object', await h.json(target, 'PUT', key, { metadata: [1] }));
  await record(
    'replace content',
    await h.fetch(`${target}/content`, {
      method: 'PUT',
      key,
      headers: { 'Content-Type': 'text/markdown; charset=utf-8' },
      body: '# new content, longer than before',
    }),
  );
  await record('download replaced', await get(target));
  await record(
    'content too large',
    await h.fetch(`${target}/content`, {
      method: 'PUT',
      key,
      headers: { 'Content-Type': 'text/markdown' },
      body: 'x'.repeat(1025),
    }),
  );
  await record('delete a file', await h.fetch(`/api/projects/${docs}/files/A.md`, { method: 'DELETE', key }));
  await record(
    'delete it again',
    await h.fetch(`/api/projects/${docs}/files/A.md`, { method: 'DELETE', key }),
  );
  await record('list after delete', await get(`/api/projects/${docs}/files`));

  await h.uploadFile(key, unicode, 'one.md', '# one', { k: 'v' });
  await record(
    'delete a project with a file',
    await h.fetch(`/api/projects/${unicode}`, { method: 'DELETE', key }),
  );
  await record('get the deleted project', await get(`/api/projects/${unicode}`));
  await record('files of the deleted project', await get(`/api/projects/${unicode}/files`));
  await record(
    'delete the default project',
    await h.fetch(`/api/projects/${defaultProjectId}`, {
      method: 'DELETE',
      key,
    }),
  );
  await record('reuse the freed name', await h.json('/api/projects', 'POST', key, { name: 'Ünïcödé 📝' }));
  await record('list projects at the end', await get('/api/projects'));

  const other = await h.account('parity-other');
  await record(
    'another account reads a project',
    await h.fetch(`/api/projects/${docs}`, { key: other.apiKey }),
  );
  await record(
    'another account lists files',
    await h.fetch(`/api/projects/${docs}/files`, { key: other.apiKey }),
  );
  return exchanges;
}

const skipPostgres = await skipWithoutPostgres('parity on postgres-s3');
const SETS = [
  'memory',
  'sqlite-fs',
  'sqlite-fs-blobs',
  ...(skipPostgres ? [] : ['postgres-s3', 'postgres-s3-blobs', 'postgres-s3-single-bucket']),
];

describe('every adapter set answers the same session the same way', () => {
  const sessions = new Map<string, Exchange[]>();

  beforeAll(async () => {
    for (const name of SETS) {
      const harness = await HttpHarness.start({ adapters: ADAPTER_SETS[name]! });
      try {
        sessions.set(name, await session(harness));
      } finally {
        await harness.close();
      }
    }
  });
  afterAll(() => sessions.clear());

  it('the reference session (memory) went as the spec says', () => {
    const reference = sessions.get('memory')!;
    const status = (step: string) => reference.find((exchange) => exchange.step === step)?.status;
    expect(status('duplicate upload')).toBe(409);
    expect(status('delete the default project')).toBe(403);
    expect(status('reuse the freed name')).toBe(201);
    const list = reference.find((exchange) => exchange.step === 'list files (code point order)')!;
    const names = (JSON.parse(list.body as string) as { files: Array<{ filename: string }> }).files.map(
      (file) => file.filename,
    );
    const codePointOrder = [...names].sort((a, b) => {
      const [x, y] = [Array.from(a), Array.from(b)];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const diff = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
        if (diff !== 0) return diff;
      }
      return x.length - y.length;
    });
    expect(names).toEqual(codePointOrder);
    expect(names).toHaveLength(NAMES.length + 1);
  });

  for (const name of SETS.filter((set) => set !== 'memory')) {
    it(`${name} answers exactly as memory does`, () => {
      const reference = sessions.get('memory')!;
      const actual = sessions.get(name)!;
      expect(actual.map((exchange) => exchange.step)).toEqual(reference.map((exchange) => exchange.step));
      for (const [index, exchange] of actual.entries())
        expect(exchange, exchange.step).toEqual(reference[index]);
    });
  }
});
