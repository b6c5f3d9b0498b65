import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  compareCodePoints,
  createMdStore,
  indexDocument,
  type MdStore,
  matchesQuery,
  type Principal,
  parseQuery,
  tokenize,
} from '@mdstore/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTER_SETS, skipWithoutPostgres, type TestAdapters } from '../support/adapters.js';

/**
 * Real Markdown: the README.md files of the packages under node_modules (the first 50 of 1–64 KiB, by
 * path). A word that occurs in N of them finds exactly those N, on every store; so do phrases, prefixes,
 * OR and exclusions (the reference: the core's own tokenizer and matcher on the same texts).
 */

const ROOT = fileURLToPath(new URL('../../../../node_modules/', import.meta.url));
const COUNT = 50;

async function readmes(): Promise<{ filename: string; text: string }[]> {
  const dirs: string[] = [];
  for (const entry of (await readdir(ROOT)).sort()) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) {
      for (const inner of (await readdir(join(ROOT, entry))).sort()) dirs.push(`${entry}/${inner}`);
    } else dirs.push(entry);
  }
  const found: { filename: string; text: string }[] = [];
  for (const dir of dirs) {
    const path = join(ROOT, dir, 'README.md');
    const size = await stat(path).then(
      (info) => (info.isFile() ? info.size : 0),
      () => 0,
    );
    if (size < 1024 || size > 64 * 1024) continue;
    found.push({ filename: `${dir.replaceAll('/', '__')}.md`, text: await readFile(path, 'utf8') });
    if (found.length === COUNT) break;
  }
  return found;
}

const WORDS = ['install', 'license', 'the', 'function', 'promise', 'typescript', 'browser', 'mit', 'zlib'];
const QUERIES = ['"npm install"', 'instal*', 'stream OR buffer', 'license -mit', 'api "the license"'];

const SETS = [
  { name: 'memory', postgres: false },
  { name: 'sqlite-fs', postgres: false },
  { name: 'postgres-s3', postgres: true },
];

const corpus = (await readmes()).sort((a, b) => compareCodePoints(a.filename, b.filename));

for (const set of SETS) {
  const skip = set.postgres && (await skipWithoutPostgres(`README corpus on ${set.name}`));
  describe.skipIf(skip)(`README corpus on ${set.name}`, () => {
    let adapters: TestAdapters;
    let store: MdStore;
    let principal: Principal;
    let projectId: string;

    beforeAll(async () => {
      adapters = await ADAPTER_SETS[set.name]!();
      store = createMdStore({ ...adapters, settings: adapters.settings });
      const created = await store.accounts.create({ name: 'readmes' });
      principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
      projectId = created.defaultProject.id;
      for (const { filename, text } of corpus) {
        await store.files.upload({
          principal,
          projectId,
          filename,
          content: (async function* () {
            yield new TextEncoder().encode(text);
          })(),
        });
      }
    });
    afterAll(async () => {
      await adapters?.close();
    });

    const found = async (query: string) => {
      const names: string[] = [];
      let cursor: string | undefined;
      let total = -1;
      do {
        const answer = await store.files.search({
          principal,
          projectId,
          body: { query, sort: 'filename', limit: 100, ...(cursor && { cursor }) },
        });
        total = answer.totalCount;
        names.push(...answer.results.map((result) => result.file.filename));
        cursor = answer.nextCursor ?? undefined;
      } while (cursor);
      expect(total).toBe(names.length);
      return names;
    };

    it(`indexes ${COUNT} real READMEs; a word in N of them finds exactly those N`, async () => {
      expect(corpus).toHaveLength(COUNT);
      for (const word of WORDS) {
        const expected = corpus
          .filter(({ filename, text }) =>
            [...tokenize(filename), ...tokenize(text)].some((token) => token.term === word),
          )
          .map(({ filename }) => filename);
        expect(await found(word), word).toEqual(expected);
      }
      // Most of these READMEs say "install" somewhere: the corpus exercises real matches.
      expect((await found('install')).length).toBeGreaterThan(10);
    });

    it('phrases, prefixes, OR and exclusions agree with the reference matcher', async () => {
      for (const text of QUERIES) {
        const query = parseQuery(text);
        const expected = corpus
          .filter(({ filename, text: content }) =>
            matchesQuery(
              query,
              indexDocument({ filename, contentText: content, metadata: null, frontmatter: null }),
            ),
          )
          .map(({ filename }) => filename);
        expect(await found(text), text).toEqual(expected);
      }
    });
  });
}
