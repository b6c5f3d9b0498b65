/// <reference types="node" />
// A test run by Node (the console's sources are read from disk): Node's types here only.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The console talks to the server through `@mdstore/client` only (issue 35): its calls are the SDK's
 * methods, typed from the same OpenAPI document as the server. This scan fails when a raw request comes
 * back into `src/`: a `fetch(` outside `src/api.ts` (the one `fetch` the SDK is given), another way to
 * send a request, a request helper, the SDK's untyped escape hatch, or an `/api/` path built outside
 * `src/rendered.ts` (which names the attachment URLs the server's HTML holds, read through the SDK).
 */

const SRC = path.join(import.meta.dirname, '../src');

/** Where each rule allows an exception, by file (relative to `src/`). */
const RULES: readonly { name: string; pattern: RegExp; allowedIn: readonly string[] }[] = [
  { name: 'fetch(', pattern: /(^|[^\w.])fetch\s*\(/, allowedIn: ['api.ts'] },
  {
    name: 'another transport',
    pattern: /XMLHttpRequest|EventSource|sendBeacon|new WebSocket/,
    allowedIn: [],
  },
  { name: 'a request helper', pattern: /(^|[^\w.])(request|getJson)\s*(<[^>]*>)?\s*\(/, allowedIn: [] },
  {
    name: "the SDK's raw layer",
    pattern: /\.api\.(request|json)\s*\(|\.transport\.send\s*\(/,
    allowedIn: [],
  },
  { name: 'an /api/ path', pattern: /\/api\//, allowedIn: ['rendered.ts'] },
];

/** The code of a source: block comments and whole-line comments dropped (doc comments name routes). */
const codeOf = (source: string) =>
  source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .map((line) => (line.trimStart().startsWith('//') ? '' : line));

/** Every breach of the rules in `files` (name → source): `file:line rule`. */
export function breaches(files: Readonly<Record<string, string>>): string[] {
  const found: string[] = [];
  for (const [file, source] of Object.entries(files)) {
    codeOf(source).forEach((line, i) => {
      for (const rule of RULES)
        if (rule.pattern.test(line) && !rule.allowedIn.includes(file))
          found.push(`${file}:${i + 1} ${rule.name}`);
    });
  }
  return found;
}

function sources(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const name = prefix + entry.name;
    if (entry.isDirectory()) Object.assign(out, sources(path.join(dir, entry.name), `${name}/`));
    else if (/\.tsx?$/.test(entry.name)) out[name] = readFileSync(path.join(dir, entry.name), 'utf8');
  }
  return out;
}

describe('the console calls the server through the SDK only', () => {
  it('no raw request in src/', () => {
    const files = sources(SRC);
    expect(Object.keys(files)).toContain('screens/file.tsx');
    expect(breaches(files)).toEqual([]);
  });

  it('the one fetch is the one the SDK is given', () => {
    const api = readFileSync(path.join(SRC, 'api.ts'), 'utf8');
    expect(api.match(/(^|[^\w.])fetch\s*\(/gm)).toHaveLength(1);
    expect(api).toMatch(/createClient\(\{[\s\S]*fetch: consoleFetch/);
  });

  it('the scan finds the raw calls the console used to make', () => {
    const raw = {
      'screens/trash.tsx': [
        '/** `DELETE /api/projects/{id}/trash/{trash_id}` in a comment is no call. */',
        "await request('/api/projects/' + projectId + '/trash', { method: 'DELETE' });",
        "const page = await getJson<Page>('/api/keys', { signal });",
        "await fetch('/api/projects');",
        "await sdk().api.json('get', '/api/projects', {});",
      ].join('\n'),
      'api.ts': "const response = await fetch(input, init); // a path: '/api/'",
    };
    expect(breaches(raw)).toEqual([
      'screens/trash.tsx:2 a request helper',
      'screens/trash.tsx:2 an /api/ path',
      'screens/trash.tsx:3 a request helper',
      'screens/trash.tsx:3 an /api/ path',
      'screens/trash.tsx:4 fetch(',
      'screens/trash.tsx:4 an /api/ path',
      "screens/trash.tsx:5 the SDK's raw layer",
      'screens/trash.tsx:5 an /api/ path',
      'api.ts:1 an /api/ path',
    ]);
  });
});
