import { type RecordsRepository, SEARCH_COST_LIMITS, type SearchCandidatesQuery } from '@mdstore/core';
import { aFile } from '@mdstore/core/testing';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../src/search/query.js';
import { SearchDocumentCache } from '../src/use-cases/search/document-cache.js';
import { scanMatches } from '../src/use-cases/search/scan.js';
import { filenames, scene } from './support/search-scene.js';

/**
 * The cost bounds of a search (issue 34, `SEARCH_COST_LIMITS`, docs/reliability.md "Cost bounds"),
 * counted, not timed: a search over a project much larger than the bounds examines at most
 * `scanMaxRows` index rows, reads at most `matchTextMaxBytes` of content text to match and rank and
 * `snippetTextMaxBytes` for a page's snippets, and says so with `truncated` / `snippetsTruncated`.
 */

/** What a search read from its store: rows of candidates, and characters of text (≤ bytes). */
interface Work {
  rows: number;
  scanText: number;
  /** Text read per store call, in order. */
  textCalls: number[];
}

function counting(work: Work) {
  return (inner: RecordsRepository): RecordsRepository =>
    new Proxy(inner, {
      get(target, property) {
        if (property === 'findSearchCandidates') {
          return async (q: SearchCandidatesQuery) => {
            const found = await target.findSearchCandidates(q);
            if (q.withText) {
              const chars = found.reduce((sum, c) => sum + (c.contentText ?? '').length, 0);
              work.textCalls.push(chars);
              work.scanText += chars;
            } else {
              work.rows += found.length;
            }
            return found;
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
}

const FILE_BYTES = 40 * 1024;
/** 40 KiB of words, every file matching `lorem` (and `lo*`) many times. */
const TEXT = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(FILE_BYTES / 27)).slice(0, FILE_BYTES);
/** Files whose text fits the scan's text budget. */
const FIT = Math.floor(SEARCH_COST_LIMITS.matchTextMaxBytes / FILE_BYTES);
const name = (i: number) => `f${String(i).padStart(4, '0')}.md`;

async function largeProject(files: number) {
  const work: Work = { rows: 0, scanText: 0, textCalls: [] };
  const fixture = await scene({ wrapRecords: counting(work) });
  await fixture.records.withTransaction(async (tx) => {
    for (let i = 0; i < files; i++) {
      const file = aFile({ projectId: fixture.at.projectId, filename: name(i), sizeBytes: FILE_BYTES });
      await tx.insertFile({ file });
      await tx.indexFile({ file, contentText: TEXT });
    }
  });
  const reset = () => {
    work.rows = 0;
    work.scanText = 0;
    work.textCalls = [];
  };
  return { ...fixture, work, reset };
}

describe('the cost bounds of a search', () => {
  // 1.5 × the text budget: every search with a query below would read 12 MiB without the bound.
  const FILES = Math.ceil(FIT * 1.5);

  it('reads at most matchTextMaxBytes to match and rank, then answers what it found, truncated', async () => {
    const { search, work, reset } = await largeProject(FILES);
    const bodies = [{ query: 'lorem' }, { query: 'lo*', sort: 'filename', limit: 3 }];
    const answers = [];
    for (const body of bodies) {
      reset();
      const answer = await search(body);
      answers.push(answer);
      // The scan's text (all but the last call, the page's snippets) stays within the budget.
      const scanned = work.textCalls.slice(0, -1).reduce((sum, chars) => sum + chars, 0);
      expect(scanned).toBeLessThanOrEqual(SEARCH_COST_LIMITS.matchTextMaxBytes);
      expect(scanned).toBe(FIT * FILE_BYTES);
      // In round trips of at most matchTextBatchBytes each.
      for (const chars of work.textCalls.slice(0, -1))
        expect(chars).toBeLessThanOrEqual(SEARCH_COST_LIMITS.matchTextBatchBytes);
      expect(work.rows).toBeLessThanOrEqual(FILES);
      expect(answer.truncated).toBe(true);
      expect(answer.totalCount).toBe(FIT);
      expect(answer.results).toHaveLength(body.limit ?? 20);
      expect(work.textCalls.at(-1)).toBe((body.limit ?? 20) * FILE_BYTES);
      expect(answer.nextCursor).not.toBeNull();
    }
    // Sorted by filename, the page is the first files in order.
    expect(filenames(answers[1]!)).toEqual([name(0), name(1), name(2)]);
    // Without a query nothing is read but rows: the whole project, not truncated.
    reset();
    const all = await search({ sort: 'filename', order: 'desc', limit: 1 });
    expect(filenames(all)).toEqual([name(FILES - 1)]);
    expect(all.totalCount).toBe(FILES);
    expect(all.truncated).toBeUndefined();
    expect(work.scanText).toBe(0);
    expect(work.rows).toBe(FILES);
  }, 120_000);

  it('reads at most snippetTextMaxBytes for a page’s snippets; the rest keep their place without', async () => {
    const { search, work, reset } = await largeProject(100);
    reset();
    const answer = await search({ query: 'lorem', sort: 'filename', limit: 100 });
    const withSnippets = Math.floor(SEARCH_COST_LIMITS.snippetTextMaxBytes / FILE_BYTES);
    expect(work.textCalls.at(-1)).toBe(withSnippets * FILE_BYTES);
    expect(work.textCalls.at(-1)).toBeLessThanOrEqual(SEARCH_COST_LIMITS.snippetTextMaxBytes);
    expect(answer.snippetsTruncated).toBe(true);
    expect(answer.truncated).toBeUndefined();
    expect(filenames(answer)).toEqual(Array.from({ length: 100 }, (_, i) => name(i)));
    const shown = answer.results.map((result) => result.snippets.length > 0);
    expect(shown).toEqual(Array.from({ length: 100 }, (_, i) => i < withSnippets));
    // A page within the budget is the interface's answer, unchanged.
    const small = await search({ query: 'lorem', limit: 5 });
    expect(Object.keys(small).sort()).toEqual(['nextCursor', 'results', 'totalCount']);
  }, 120_000);

  it('examines at most its rows budget of index candidates, then stops with truncated', async () => {
    const { records: inner, work, reset, at } = await largeProject(30);
    const records = counting(work)(inner);
    reset();
    const seen: string[] = [];
    const report = await scanMatches(records, {
      cache: new SearchDocumentCache(0),
      projectIds: [at.projectId],
      query: parseQuery('lorem'),
      pushdown: [],
      narrowing: [],
      residual: null,
      rank: true,
      onMatch: (match) => {
        seen.push(match.file.filename);
        return true;
      },
      budget: { rows: 12, textBytes: Number.POSITIVE_INFINITY },
    });
    expect(report).toEqual({ rows: 12, textBytes: 12 * FILE_BYTES, truncated: true });
    // One row past the budget is read (to know that the bound cut something), never examined.
    expect(work.rows).toBe(12 + 1);
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => name(i)));
    // A budget the project fits: every row once, not truncated.
    reset();
    const whole = await scanMatches(records, {
      cache: new SearchDocumentCache(0),
      projectIds: [at.projectId],
      query: null,
      pushdown: [],
      narrowing: [],
      residual: null,
      rank: false,
      onMatch: () => true,
      budget: { rows: 30, textBytes: 0 },
    });
    expect(whole).toEqual({ rows: 30, textBytes: 0, truncated: false });
    expect(work.rows).toBe(30);
  });

  it('holds rank statistics, not documents, for the matches it ranks', async () => {
    const { records, at } = await largeProject(3);
    const held: unknown[] = [];
    await scanMatches(records, {
      cache: new SearchDocumentCache(0),
      projectIds: [at.projectId],
      query: parseQuery('lorem OR dolor'),
      pushdown: [],
      narrowing: [],
      residual: null,
      rank: true,
      onMatch: (match) => {
        held.push(match);
        return true;
      },
    });
    expect(held).toHaveLength(3);
    for (const match of held) {
      expect(Object.keys(match as object).sort()).toEqual(['file', 'stats']);
      const { stats } = match as { stats: { occurrences: number[][] } };
      // One row of three per-field counts per query term.
      expect(stats.occurrences.map((row) => row.length)).toEqual([3, 3]);
    }
  });
});

/**
 * Records that expand prefixes over a vocabulary (as SQLite's FTS5 does; the memory store matches each
 * document itself) and remember the words of each query the store is asked.
 */
function withVocabulary(
  vocabulary: readonly string[],
  asked: { expansions: number[]; storeTerms: number[] },
) {
  const sorted = [...vocabulary].sort();
  return (inner: RecordsRepository): RecordsRepository =>
    new Proxy(inner, {
      get(target, property) {
        if (property === 'expandSearchPrefix') {
          return async (q: { word: string; limit: number }) => {
            const words = sorted.filter((word) => word.startsWith(q.word)).slice(0, q.limit);
            asked.expansions.push(words.length);
            return words;
          };
        }
        if (property === 'findSearchCandidates') {
          return async (q: SearchCandidatesQuery) => {
            if (q.query) {
              const terms = q.query.include.flat();
              expect(terms.every((term) => !term.prefix)).toBe(true);
              asked.storeTerms.push(terms.length);
            }
            return target.findSearchCandidates(q);
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
}

describe('a prefix query, bounded in the words it expands to (issue 34)', () => {
  const max = SEARCH_COST_LIMITS.prefixMaxTerms;
  // Two letters after `lo`: 26 × 26 = 676 words, more than one prefix may expand to.
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const vocabulary = [...letters].flatMap((a) => [...letters].map((b) => `lo${a}${b}`));

  it(`hands the store at most ${max} words for a prefix, never the prefix, and says truncated`, async () => {
    const asked = { expansions: [] as number[], storeTerms: [] as number[] };
    const { put, search } = await scene({ wrapRecords: withVocabulary(vocabulary, asked) });
    await put('first.md', 'loaa and more\n');
    await put('last.md', 'lozz at the end\n');
    const answer = await search({ query: 'lo*' });
    // The vocabulary was read with a LIMIT of one past the share, and the engine got the share.
    expect(asked.expansions).toEqual([max + 1]);
    expect(asked.storeTerms.every((terms) => terms === max)).toBe(true);
    expect(asked.storeTerms.length).toBeGreaterThan(0);
    expect(answer.truncated).toBe(true);
    // `loaa` is among the first words; `lozz` is past the bound (so it is not found: truncated says so).
    expect(filenames(answer)).toEqual(['first.md']);
  });

  it('a prefix with fewer words than the bound finds every file, not truncated; with none, nothing', async () => {
    const asked = { expansions: [] as number[], storeTerms: [] as number[] };
    const { put, search } = await scene({ wrapRecords: withVocabulary(vocabulary, asked) });
    await put('first.md', 'loaa and more\n');
    await put('last.md', 'lozz at the end\n');
    const narrow = await search({ query: 'loz*' });
    expect(narrow.truncated).toBeUndefined();
    expect(filenames(narrow)).toEqual(['last.md']);
    expect(asked.storeTerms).toEqual([26]);
    const none = await search({ query: 'qu*' });
    expect(none.results).toEqual([]);
    expect(none.truncated).toBeUndefined();
  });
});
