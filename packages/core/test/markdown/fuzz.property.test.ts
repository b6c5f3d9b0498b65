import {
  applyEdits,
  type ErrorCode,
  findSection,
  headingsParseCost,
  isMdStoreError,
  markdownParserCalls,
  outline,
  outlineCost,
  parseEditRequest,
  parseFrontmatter,
  STEP_WORK_LIMIT,
  wireBody,
} from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textStream } from '../support/fixture.js';
import { BLOB, scene } from '../support/store-scene.js';

/**
 * Issue 22, the fuzz pass: random and adversarial Markdown, MDX, YAML front matter and edit bodies
 * thrown at the parsing and editing entry points. Each must give a documented answer: a result or one
 * of the documented error codes, never another exception; and a text past its bound is refused before
 * any parse (the parser counter does not move). Seeded, so a failure is reproducible; about ten seconds
 * of CPU in all.
 */

const SEED = 22_2026;
const settings = (numRuns: number) => ({ seed: SEED, numRuns });

/** Pieces that exercise every construct the parsers have, and the ones that once made them slow. */
const PIECES = [
  '#',
  '## ',
  '\n',
  '\r\n',
  '\r',
  '\n\n',
  '> ',
  '- ',
  '* ',
  '1. ',
  '   ',
  '\t',
  '*',
  '_',
  '**',
  '`',
  '```',
  '~~~',
  '[',
  ']',
  '(',
  ')',
  '![',
  '[[',
  ']]',
  '|',
  '<',
  '>',
  '<A>',
  '</A>',
  '<A b={1}>',
  '{',
  '}',
  '{1}',
  'import x from "y"\n',
  'export const a = 1\n',
  '---\n',
  '===\n',
  '\\',
  '&amp;',
  '&#x0;',
  'é',
  '\u0000',
  '\ud83d\ude00',
  '\ufeff',
  'word ',
  'Title',
  'http://x',
];

const piece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PIECES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);

/** A document of pieces, sometimes with a long run of one piece (nesting, amplification). */
const markdown = fc.oneof(
  { weight: 3, arbitrary: fc.array(piece, { maxLength: 200 }).map((pieces) => pieces.join('')) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...PIECES),
        fc.integer({ min: 100, max: 20_000 }),
        fc.array(piece, { maxLength: 20 }),
      )
      .map(([unit, times, rest]) => unit.repeat(times) + rest.join('')),
  },
);

function expectDocumented(error: unknown, codes: readonly ErrorCode[]): void {
  if (!codes.some((code) => isMdStoreError(error, code))) throw error;
}

describe('parsing entry points', () => {
  it('outline: a result within the bound, OUTLINE_TOO_LARGE past it with no parse', () => {
    fc.assert(
      fc.property(markdown, fc.boolean(), (text, mdx) => {
        const before = markdownParserCalls();
        try {
          const found = outline(text, { mdx });
          expect(outlineCost(text, mdx)).toBeLessThanOrEqual(STEP_WORK_LIMIT);
          expect(Array.isArray(found.headings) && Array.isArray(found.links)).toBe(true);
        } catch (error) {
          expectDocumented(error, ['OUTLINE_TOO_LARGE']);
          expect(outlineCost(text, mdx)).toBeGreaterThan(STEP_WORK_LIMIT);
          expect(markdownParserCalls()).toEqual(before);
        }
      }),
      settings(300),
    );
  });

  it('sections: a section, or 409 (not found, ambiguous, work bound: then no parse)', () => {
    fc.assert(
      fc.property(
        markdown,
        fc.boolean(),
        fc.array(fc.constantFrom('Title', 'word', '', 'x'), { maxLength: 3 }),
        (text, mdx, path) => {
          const before = markdownParserCalls();
          try {
            const section = findSection(text, path, { mdx, loc: ['query', 'section'] });
            expect(section.start).toBeLessThanOrEqual(section.end);
          } catch (error) {
            expectDocumented(error, ['EDIT_CONFLICT']);
            const type = (error as { issues: Array<{ type: string }> }).issues[0]!.type;
            expect(['section_not_found', 'section_ambiguous', 'work_budget']).toContain(type);
            if (type === 'work_budget') {
              expect(headingsParseCost(text, mdx)).toBeGreaterThan(STEP_WORK_LIMIT);
              expect(markdownParserCalls()).toEqual(before);
            }
          }
        },
      ),
      settings(300),
    );
  });

  it('front matter: an object or null, never an exception', () => {
    const yamlPiece = fc.constantFrom(
      'a: 1\n',
      'b: [1, 2]\n',
      '- x\n',
      '&a x\n',
      '*a\n',
      '<<: *a\n',
      '!!binary x\n',
      '? k\n',
      ': v\n',
      '{',
      '}',
      '[',
      ']',
      '"',
      "'",
      '  ',
      '\t',
      '#',
      '|\n',
      '>\n',
      '%YAML 1.2\n',
      '---\n',
      '...\n',
      '\n',
    );
    const block = fc
      .array(fc.oneof(yamlPiece, fc.string({ maxLength: 6 })), { maxLength: 100 })
      .map((pieces) => `---\n${pieces.join('')}\n---\n# body\n`);
    fc.assert(
      fc.property(block, (text) => {
        const parsed = parseFrontmatter(text);
        expect(parsed === null || (typeof parsed === 'object' && !Array.isArray(parsed))).toBe(true);
      }),
      settings(500),
    );
  });
});

/** Edit bodies: mostly well formed, with random values where the schema expects others. */
const sectionPath = fc.oneof(
  fc.constantFrom('Title', 'word'),
  fc.array(fc.constantFrom('Title', 'word', ''), { maxLength: 3 }),
);
const anything = fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.constant(null), fc.boolean());
const editArbitrary = fc.oneof(
  fc.record({
    op: fc.constant('replace'),
    old: fc.oneof(fc.constantFrom('#', 'word', '\n', '{', '*', ''), fc.string({ maxLength: 3 })),
    new: fc.oneof(
      fc.string({ maxLength: 5 }),
      fc.integer({ min: 0, max: 3000 }).map((n) => 'y'.repeat(n)),
    ),
    count: fc.oneof(fc.constant('all'), fc.integer({ min: -1, max: 3 }), anything),
  }),
  fc.record({ op: fc.constantFrom('append', 'prepend'), text: markdown }, { requiredKeys: ['op', 'text'] }),
  fc.record({ op: fc.constantFrom('append', 'prepend'), text: fc.string(), section: sectionPath }),
  fc.record({ op: fc.constant('replace_section'), section: sectionPath, text: fc.string({ maxLength: 20 }) }),
  fc.record({
    op: fc.constant('insert'),
    line: fc.oneof(fc.integer({ min: -2, max: 50 }), anything),
    text: fc.string(),
  }),
  fc.dictionary(fc.constantFrom('op', 'old', 'new', 'text', 'section', 'line', 'count', 'extra'), anything),
);
const editBody = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ edits: fc.array(editArbitrary, { maxLength: 5 }), dry_run: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.anything() },
);

/** The documented answers of an edit: 400/409/413/422 families. */
const EDIT_CODES: readonly ErrorCode[] = [
  'MALFORMED_INPUT',
  'INVALID_INPUT',
  'EDIT_CONFLICT',
  'CONTENT_TOO_LARGE',
];

describe('editing entry points', () => {
  it('parseEditRequest then applyEdits: a text within the size limit, or a documented error', () => {
    const maxBytes = 64 * 1024;
    fc.assert(
      fc.property(markdown, editBody, fc.boolean(), (content, body, mdx) => {
        try {
          const request = parseEditRequest(body);
          const result = applyEdits(content, request.edits, { mdx, maxBytes });
          expect(result.length).toBeLessThanOrEqual(maxBytes);
        } catch (error) {
          expectDocumented(error, EDIT_CODES);
        }
      }),
      settings(500),
    );
  });

  it('the edit use case (dry run): a result or a documented error, never another exception', async () => {
    const { store, at } = await scene({ ...BLOB, maxFileBytes: 64 * 1024 });
    let index = 0;
    await fc.assert(
      fc.asyncProperty(markdown, editBody, fc.boolean(), async (content, body, mdx) => {
        if (content.length === 0 || content.length > 64 * 1024) return;
        const filename = `f${index++}.${mdx ? 'mdx' : 'md'}`;
        await store.files.upload({ ...at, filename, content: textStream(content) });
        try {
          const edited = await store.files.edit({ ...at, filename, body: wireBody(body) });
          expect(edited.file.sizeBytes).toBeLessThanOrEqual(64 * 1024);
        } catch (error) {
          expectDocumented(error, [...EDIT_CODES, 'PRECONDITION_REQUIRED']);
        }
      }),
      settings(100),
    );
  });
});
