import { headingsParseCost, markdownParserCalls, outlineCost, STEP_WORK_LIMIT } from '@mdstore/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mdxWithinBudget } from '../src/markdown/mdx-budget.js';
import { textStream } from './support/fixture.js';
import { BLOB, failure, scene } from './support/store-scene.js';

/**
 * Issue 22, deterministic stall checks: the worst-case inputs (the findings' own, and generated ones:
 * replacement amplification, nesting depth, heading counts, line counts) are refused BEFORE their work
 * starts, shown by work counters (parser calls, the string pieces a replacement builds), never by a clock
 * (speed lives in `npm run bench`, scenario `stall`).
 */

const MAX_FILE_BYTES = 10 * 1024 * 1024;

async function withFile(filename: string, text: string) {
  const { store, at } = await scene({ ...BLOB, maxFileBytes: MAX_FILE_BYTES });
  await store.files.upload({ ...at, filename, content: textStream(text) });
  return { store, file: { ...at, filename } };
}

const replaceAll = (old: string, replacement: string) => ({
  edits: [{ op: 'replace', old, new: replacement, count: 'all' }],
  dry_run: true,
});

/** Counts `split` calls on strings `old` is searched in: the replacement is built by split/join. */
function countSplits(old: string) {
  const split = vi.spyOn(String.prototype, 'split');
  const calls = () => split.mock.calls.filter(([separator]) => (separator as unknown) === old).length;
  const before = calls();
  return () => calls() - before;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('replace with count "all": the result size is known before it is built (findings 1 and 2)', () => {
  it.each([5_000, 6_000])(
    '100 000 × "x" with a %i-character `new` is 413 CONTENT_TOO_LARGE, without building it',
    async (length) => {
      const { store, file } = await withFile('x.md', 'x'.repeat(100_000));
      const splits = countSplits('x');
      const refused = await failure(() =>
        store.files.edit({ ...file, body: replaceAll('x', 'y'.repeat(length)) }),
      );
      expect(refused.code).toBe('CONTENT_TOO_LARGE');
      expect(splits()).toBe(0);
    },
  );

  it.each([10, 100, 1_000, 5_000])(
    'amplification ×%i: a result one code unit under the limit is built, one over is refused unbuilt',
    async (factor) => {
      // `occurrences` × (factor − 1) + length = limit (+ 1).
      const occurrences = Math.floor((MAX_FILE_BYTES - 1) / factor);
      const base = 'x'.repeat(occurrences);
      const room = MAX_FILE_BYTES - occurrences * factor;
      const fits = `${base}${'.'.repeat(room)}`;
      const { store, file } = await withFile('x.md', fits);
      const splits = countSplits('x');
      const done = await store.files.edit({ ...file, body: replaceAll('x', 'y'.repeat(factor)) });
      expect(done.file.sizeBytes).toBe(MAX_FILE_BYTES);
      expect(splits()).toBe(1);
      const over = await withFile('y.md', `${base}${'.'.repeat(room + 1)}`);
      const overSplits = countSplits('x');
      const refused = await failure(() =>
        over.store.files.edit({ ...over.file, body: replaceAll('x', 'y'.repeat(factor)) }),
      );
      expect(refused.code).toBe('CONTENT_TOO_LARGE');
      expect(overSplits()).toBe(0);
    },
  );
});

describe('nested MDX expressions (finding 3)', () => {
  const nested = (depth: number) =>
    `# Top\n\n${'{'.repeat(depth)}1${'}'.repeat(depth)}\n\n## Under\n\nbody\n`;

  it('the finding: {×5000 1 }×5000 gets its outline, section and section edit without micromark', async () => {
    const { store, file } = await withFile('n.mdx', nested(5_000));
    const before = markdownParserCalls();
    const outline = await store.files.outline(file);
    expect(outline.headings.map((heading) => heading.text)).toEqual(['Top', 'Under']);
    const part = await store.files.readPart({ ...file, section: ['Top', 'Under'] });
    expect(part).toMatchObject({ kind: 'part', text: '## Under\n\nbody\n' });
    const edited = await store.files.edit({
      ...file,
      body: { edits: [{ op: 'append', section: 'Under', text: 'more\n' }], dry_run: true },
    });
    expect(edited.diff).toContain('+more');
    expect(markdownParserCalls().micromark).toBe(before.micromark);
  });

  it.each([10, 100, 300, 1_000, 5_000, 20_000])(
    'depth %i: micromark runs only when its estimate is within one step, the outline only when its own is',
    async (depth) => {
      const text = nested(depth);
      const { store, file } = await withFile('n.mdx', text);
      const before = markdownParserCalls();
      const outline = await store.files.outline(file).catch((error: unknown) => error);
      if (outlineCost(text, true) <= STEP_WORK_LIMIT)
        expect(outline).toMatchObject({ headings: expect.any(Array) });
      else expect(outline).toMatchObject({ code: 'OUTLINE_TOO_LARGE' });
      const ranMicromark = markdownParserCalls().micromark - before.micromark;
      expect(ranMicromark).toBe(mdxWithinBudget(text) ? 1 : 0);
      if (depth <= 100) expect(ranMicromark).toBe(1);
      if (depth >= 1_000) expect(ranMicromark).toBe(0);
    },
  );
});

describe('heading counts (finding 4) and line counts', () => {
  const headings = (count: number) =>
    Array.from({ length: count }, (_, index) => `## heading ${index}\n\ntext\n`).join('');

  it.each([100, 1_000, 5_000, 20_000, 100_000])(
    '%i headings: an outline and a section are either within one step or refused before any parse',
    async (count) => {
      const text = headings(count);
      const { store, file } = await withFile('h.md', text);
      const before = markdownParserCalls();
      const outline = await store.files.outline(file).catch((error: unknown) => error);
      const part = await store.files
        .readPart({ ...file, section: [`heading ${count - 1}`] })
        .catch((error: unknown) => error);
      const after = markdownParserCalls();
      const outlineFits = outlineCost(text, false) <= STEP_WORK_LIMIT;
      const sectionFits = headingsParseCost(text, false) <= STEP_WORK_LIMIT;
      if (outlineFits) expect(outline).toMatchObject({ headings: expect.any(Array) });
      else expect(outline).toMatchObject({ code: 'OUTLINE_TOO_LARGE' });
      if (sectionFits)
        expect(part).toMatchObject({ kind: 'part', text: `## heading ${count - 1}\n\ntext\n` });
      else expect(part).toMatchObject({ code: 'EDIT_CONFLICT', issues: [{ type: 'work_budget' }] });
      expect(after.commonMark - before.commonMark).toBe(Number(outlineFits) + Number(sectionFits));
    },
  );

  it('the bound moves with the count: 100 headings fit, 100 000 do not', () => {
    expect(outlineCost(headings(100), false)).toBeLessThan(STEP_WORK_LIMIT);
    expect(outlineCost(headings(100_000), false)).toBeGreaterThan(STEP_WORK_LIMIT);
    expect(headingsParseCost(headings(100_000), false)).toBeGreaterThan(STEP_WORK_LIMIT);
  });

  it('a section edit on a file past the bound is 409 work_budget before any parse', async () => {
    const { store, file } = await withFile('h.md', headings(100_000));
    const before = markdownParserCalls();
    const refused = await failure(() =>
      store.files.edit({
        ...file,
        body: { edits: [{ op: 'append', section: 'heading 5', text: 'x' }], dry_run: true },
      }),
    );
    expect(refused).toMatchObject({ code: 'EDIT_CONFLICT', issues: [{ type: 'work_budget' }] });
    expect(markdownParserCalls()).toEqual(before);
  });

  it('a million lines: reading and inserting by line number is linear and parses nothing', async () => {
    const { store, file } = await withFile('l.md', 'line\n'.repeat(1_000_000));
    const before = markdownParserCalls();
    const part = await store.files.readPart({ ...file, lines: '999999-1000000' });
    expect(part).toMatchObject({ kind: 'part', text: 'line\nline\n' });
    const edited = await store.files.edit({
      ...file,
      body: { edits: [{ op: 'insert', line: 500_000, text: 'new\n' }], dry_run: true },
    });
    expect(edited.file.sizeBytes).toBe(5_000_004);
    expect(markdownParserCalls()).toEqual(before);
  });
});

describe('turns of the event loop between the linear steps on a large text', () => {
  it('an edit of a 2 MB file lets timers run after decoding, the edit, encoding and the diff', async () => {
    const { store, file } = await withFile('big.md', 'line of text\n'.repeat(160_000));
    const timeout = vi.spyOn(globalThis, 'setTimeout');
    const turns = () => timeout.mock.calls.filter(([, delay]) => delay === 0 || delay === undefined).length;
    const before = turns();
    await store.files.edit({ ...file, body: { edits: [{ op: 'append', text: 'end\n' }], dry_run: true } });
    // decode (readText), the edit (applyEditsInTurns), encode, diff: four turns.
    expect(turns() - before).toBeGreaterThanOrEqual(4);
    const small = await withFile('small.md', 'line of text\n'.repeat(10));
    const beforeSmall = turns();
    await small.store.files.edit({
      ...small.file,
      body: { edits: [{ op: 'append', text: 'end\n' }], dry_run: true },
    });
    expect(turns() - beforeSmall).toBe(0);
  });
});
