import { type MdStoreSettings, markdownParserCalls, outlineCost, STEP_WORK_LIMIT } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { codeOf, textStream } from './support/fixture.js';
import { BLOB, failure, INLINE, scene, UNKNOWN_PROJECT } from './support/store-scene.js';

/**
 * The parts of a file (lines, sections, outline) through the store on the memory adapters: the revision
 * a part describes, the errors and where they point, and the retries when a content version vanishes
 * while being read.
 * (The mutation run found no core test reaching these; see docs/testing.md.)
 */

describe('parts of a file', () => {
  const GUIDE = [
    '# Guide', // 1
    '',
    'Intro [home](https://x.io) text.',
    '',
    '## Setup', // 5
    '',
    'step one',
    '',
    '### Linux', // 9
    '',
    'apt',
    '',
    '## Usage', // 13
    '',
    'run [docs](./docs.md)', // 15
    '',
  ].join('\n');

  async function guide(settings: Partial<MdStoreSettings> = BLOB) {
    const s = await scene(settings);
    const file = { ...s.at, filename: 'guide.md' };
    const view = await s.store.files.upload({ ...file, content: textStream(GUIDE) });
    return { ...s, file, view };
  }

  it('sends lines a-b exactly as stored, the last one clipped to the file', async () => {
    const { store, at } = await scene();
    const text = '\uFEFF# T\r\nline2\r\nline3\r\nline4';
    const view = await store.files.upload({ ...at, filename: 'crlf.md', content: textStream(text) });
    const file = { ...at, filename: 'crlf.md' };
    expect(await store.files.readPart({ ...file, lines: '2-3' })).toEqual({
      kind: 'part',
      file: view,
      text: 'line2\r\nline3\r\n',
      lines: { first: 2, last: 3, total: 4 },
      heading: null,
    });
    expect(await store.files.readPart({ ...file, lines: '3-99' })).toMatchObject({
      text: 'line3\r\nline4',
      lines: { first: 3, last: 4, total: 4 },
    });
    expect(await store.files.readPart({ ...file, lines: '1-1' })).toMatchObject({
      text: '\uFEFF# T\r\n',
      lines: { first: 1, last: 1, total: 4 },
    });
    const past = await failure(() => store.files.readPart({ ...file, lines: '5-6' }));
    expect(past.code).toBe('INVALID_INPUT');
    expect(past.issues!.map((i) => i.loc)).toEqual([['query', 'lines']]);
  });

  it('reads the whole content even when it arrives in many small chunks', async () => {
    const { store, at, faults } = await scene();
    const text = '# Titré ü\n\nçà et là — 日本語\n';
    await store.files.upload({ ...at, filename: 'u.md', content: textStream(text) });
    faults.chunkBytes = 1;
    expect(await store.files.readPart({ ...at, filename: 'u.md', lines: '1-3' })).toMatchObject({
      text,
      lines: { first: 1, last: 3, total: 3 },
    });
    expect((await store.files.outline({ ...at, filename: 'u.md' })).headings).toEqual([
      { level: 1, text: 'Titré ü', line: 1, path: ['Titré ü'] },
    ]);
  });

  it('refuses a malformed range, or lines with a section, before looking at the project', async () => {
    const { store, at } = await scene();
    const nowhere = { ...at, projectId: UNKNOWN_PROJECT, filename: 'a.md' };
    expect(await failure(() => store.files.readPart({ ...nowhere, lines: '1-2', section: ['A'] }))).toEqual({
      code: 'INVALID_INPUT',
      message: 'query.lines: Value error, lines and section cannot be used together',
      issues: [
        {
          loc: ['query', 'lines'],
          msg: 'Value error, lines and section cannot be used together',
          type: 'value_error',
        },
      ],
    });
    for (const lines of ['1', 'a-b', '1-2-3', '']) {
      const refused = await failure(() => store.files.readPart({ ...nowhere, lines }));
      expect(refused.code).toBe('INVALID_INPUT');
      expect(refused.issues!.map((i) => i.loc)).toEqual([['query', 'lines']]);
    }
    expect(await codeOf(() => store.files.readPart({ ...nowhere, lines: '1-2' }))).toBe('PROJECT_NOT_FOUND');
    expect(await codeOf(() => store.files.readPart({ ...at, filename: 'a.md', lines: '1-2' }))).toBe(
      'FILE_NOT_FOUND',
    );
  });

  it('sends a section from its heading to the next heading of the same or a higher level', async () => {
    const { store, file, view } = await guide();
    expect(await store.files.readPart({ ...file, section: ['Setup'] })).toEqual({
      kind: 'part',
      file: view,
      text: '## Setup\n\nstep one\n\n### Linux\n\napt\n\n',
      lines: { first: 5, last: 12, total: 16 - 1 },
      heading: { level: 2, text: 'Setup', line: 5, path: ['Guide', 'Setup'] },
    });
    expect(await store.files.readPart({ ...file, section: ['Setup', 'Linux'] })).toMatchObject({
      text: '### Linux\n\napt\n\n',
      lines: { first: 9, last: 12, total: 15 },
      heading: { level: 3, text: 'Linux', line: 9, path: ['Guide', 'Setup', 'Linux'] },
    });
    // The last section runs to the end of the file; a string names a heading unique in the file.
    expect(await store.files.readPart({ ...file, section: 'Usage' })).toMatchObject({
      text: '## Usage\n\nrun [docs](./docs.md)\n',
      lines: { first: 13, last: 15, total: 15 },
    });
    expect(await store.files.readPart({ ...file, section: ['Guide'] })).toMatchObject({
      text: GUIDE,
      lines: { first: 1, last: 15, total: 15 },
      heading: { level: 1, text: 'Guide', line: 1, path: ['Guide'] },
    });
  });

  it('answers EDIT_CONFLICT at the section for a section that matches no heading, or none given', async () => {
    const { store, file } = await guide();
    const missing = await failure(() => store.files.readPart({ ...file, section: ['Windows'] }));
    expect(missing.code).toBe('EDIT_CONFLICT');
    expect(missing.issues).toHaveLength(1);
    expect(missing.issues![0]).toMatchObject({ loc: ['query', 'section'], type: 'section_not_found' });
    expect(missing.issues![0]!.msg).toContain('No heading matches section ["Windows"]');

    const none = await failure(() => store.files.readPart(file));
    expect(none.code).toBe('EDIT_CONFLICT');
    expect(none.issues![0]).toMatchObject({ loc: ['query', 'section'], type: 'section_not_found' });
    expect(none.issues![0]!.msg).toContain('No heading matches section []');
  });

  it('parses .mdx files (any case) as MDX and the others as CommonMark', async () => {
    const { store, at } = await scene();
    const text = '# Title\n\n{/*\n# Hidden\n*/}\n\nSee [x](y.md)\n';
    for (const filename of ['a.md', 'b.mdx', 'C.MDX', 'd.mdx.md'])
      await store.files.upload({ ...at, filename, content: textStream(text) });
    const hidden = (filename: string) => store.files.readPart({ ...at, filename, section: ['Hidden'] });
    expect(await hidden('a.md')).toMatchObject({
      text: '# Hidden\n*/}\n\nSee [x](y.md)\n',
      lines: { first: 4, last: 7, total: 7 },
    });
    expect(await codeOf(() => hidden('b.mdx'))).toBe('EDIT_CONFLICT');
    expect(await codeOf(() => hidden('C.MDX'))).toBe('EDIT_CONFLICT');
    expect((await hidden('d.mdx.md')).kind).toBe('part');
    const headings = async (filename: string) =>
      (await store.files.outline({ ...at, filename })).headings.map((h) => h.text);
    expect(await headings('a.md')).toEqual(['Title', 'Hidden']);
    expect(await headings('b.mdx')).toEqual(['Title']);
    expect(await headings('C.MDX')).toEqual(['Title']);
    expect(await headings('d.mdx.md')).toEqual(['Title', 'Hidden']);
  });

  it('answers not-modified without reading the content, and 412 for a failed If-Match', async () => {
    const { store, file, view, faults } = await guide();
    faults.gets = 0;
    expect(
      await store.files.readPart({ ...file, section: ['Usage'], conditions: { ifNoneMatch: view.etag } }),
    ).toEqual({ kind: 'not-modified', file: view });
    expect(faults.gets).toBe(0);
    expect(
      await codeOf(() => store.files.readPart({ ...file, lines: '1-2', conditions: { ifMatch: '"other"' } })),
    ).toBe('PRECONDITION_FAILED');
    expect(faults.gets).toBe(0);
    expect(
      await store.files.readPart({
        ...file,
        lines: '1-1',
        conditions: { ifMatch: view.etag, ifNoneMatch: '"x"' },
      }),
    ).toMatchObject({ kind: 'part', text: '# Guide\n' });
    expect(faults.gets).toBe(1);
  });

  it('reads the file again when its content vanishes, and gives up after three attempts', async () => {
    for (const mode of ['open', 'stream'] as const) {
      const { store, file, faults } = await guide();
      faults.mode = mode;
      faults.left = 2;
      faults.gets = 0;
      expect(await store.files.readPart({ ...file, lines: '1-1' })).toMatchObject({ text: '# Guide\n' });
      expect(faults.gets).toBe(3);
      faults.left = 2;
      expect((await store.files.outline(file)).headings).toHaveLength(4);
      faults.left = 3;
      faults.gets = 0;
      expect(await codeOf(() => store.files.readPart({ ...file, lines: '1-1' }))).toBe('FILE_NOT_FOUND');
      expect(faults.gets).toBe(3);
      faults.left = 3;
      expect(await codeOf(() => store.files.outline(file))).toBe('FILE_NOT_FOUND');
    }
  });

  it('passes on any other failure while reading', async () => {
    const { store, file, faults } = await guide();
    faults.mode = 'error';
    faults.left = 1;
    faults.gets = 0;
    await expect(store.files.readPart({ ...file, lines: '1-1' })).rejects.toThrow('disk on fire');
    expect(faults.gets).toBe(1);
  });

  it("passes the caller's signal to every read of content", async () => {
    const { store, file } = await guide();
    await store.files.updateContent({ ...file, content: textStream('# Guide\n\nnew\n') });
    const signal = AbortSignal.abort();
    const reads = [
      () => store.files.readPart({ ...file, lines: '1-1', signal }),
      () => store.files.outline({ ...file, signal }),
      () => store.files.readRevision({ ...file, revision: '1', signal }),
      () => store.files.diff({ ...file, from: '1', signal }),
    ];
    for (const read of reads) await expect(read()).rejects.toMatchObject({ name: 'AbortError' });
    expect(await store.files.diff({ ...file, from: '1', signal: new AbortController().signal })).toContain(
      '+new\n',
    );
  });

  it('outlines headings with their paths and links with their lines', async () => {
    const { store, file, view } = await guide(INLINE);
    expect(await store.files.outline(file)).toEqual({
      headings: [
        { level: 1, text: 'Guide', line: 1, path: ['Guide'] },
        { level: 2, text: 'Setup', line: 5, path: ['Guide', 'Setup'] },
        { level: 3, text: 'Linux', line: 9, path: ['Guide', 'Setup', 'Linux'] },
        { level: 2, text: 'Usage', line: 13, path: ['Guide', 'Usage'] },
      ],
      links: [
        { target: 'https://x.io', text: 'home', line: 3 },
        { target: './docs.md', text: 'docs', line: 15 },
      ],
      file: view,
    });
    expect(await codeOf(() => store.files.outline({ ...file, filename: 'x.md' }))).toBe('FILE_NOT_FOUND');
    expect(await codeOf(() => store.files.outline({ ...file, projectId: UNKNOWN_PROJECT }))).toBe(
      'PROJECT_NOT_FOUND',
    );
  });

  it('outlines a file whose estimated parse fits one step, and refuses one past it before parsing', async () => {
    const { store, at } = await scene();
    // One line of plain text costs OUTLINE_COST.unit (80) per code unit: about 1 250 000 is the bound.
    await store.files.upload({
      ...at,
      filename: 'max.md',
      content: textStream(`# Big\n${'a'.repeat(1_000_000)}`),
    });
    await store.files.upload({
      ...at,
      filename: 'over.md',
      content: textStream(`# Big\n${'a'.repeat(1_300_000)}`),
    });
    expect(outlineCost(`# Big\n${'a'.repeat(1_000_000)}`, false)).toBeLessThanOrEqual(STEP_WORK_LIMIT);
    expect((await store.files.outline({ ...at, filename: 'max.md' })).headings).toEqual([
      { level: 1, text: 'Big', line: 1, path: ['Big'] },
    ]);
    const parses = markdownParserCalls();
    const refused = await failure(() => store.files.outline({ ...at, filename: 'over.md' }));
    expect(refused.code).toBe('OUTLINE_TOO_LARGE');
    expect(markdownParserCalls()).toEqual(parses);
  });

  it('finding 4: 300 000 headings (2.9 MB) are refused before any parse, within 2 s', async () => {
    const { store, at } = await scene({ ...BLOB, maxFileBytes: 4 * 1024 * 1024 });
    const text = Array.from({ length: 300_000 }, (_, index) => `## h${index}\n`)
      .join('')
      .slice(0, 2_900_000);
    await store.files.upload({ ...at, filename: 'headings.md', content: textStream(text) });
    const parses = markdownParserCalls();
    expect((await failure(() => store.files.outline({ ...at, filename: 'headings.md' }))).code).toBe(
      'OUTLINE_TOO_LARGE',
    );
    const section = await failure(() =>
      store.files.readPart({ ...at, filename: 'headings.md', section: ['h1'] }),
    );
    expect(section.code).toBe('EDIT_CONFLICT');
    expect(section.issues?.[0]?.type).toBe('work_budget');
    expect(markdownParserCalls()).toEqual(parses);
  });
});
