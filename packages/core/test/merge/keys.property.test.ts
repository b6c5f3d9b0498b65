import { mergeDocument, mergeMetadata, parseFrontmatter } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** Front matter and metadata merged key by key (extensions §13, issue 38). */
const settings = { seed: 38_2027, numRuns: 300 };

const KEYS = ['title', 'tags', 'draft', 'author', 'date', 'order'];
type Change = 'keep' | 'set' | 'delete';
/** Per key: what each side does; `disjoint` keeps the two sides off each other's keys. */
const plan = (disjoint: boolean) =>
  fc
    .array(
      fc.record({
        inBase: fc.boolean(),
        a: fc.constantFrom<Change>('keep', 'keep', 'set', 'delete'),
        b: fc.constantFrom<Change>('keep', 'keep', 'set', 'delete'),
      }),
      { minLength: KEYS.length, maxLength: KEYS.length },
    )
    .map((keys) =>
      keys.map((k) => {
        // deleting an absent key changes nothing
        const a: Change = !k.inBase && k.a === 'delete' ? 'keep' : k.a;
        const b: Change = !k.inBase && k.b === 'delete' ? 'keep' : k.b;
        return { inBase: k.inBase, a, b: disjoint && a !== 'keep' ? 'keep' : b };
      }),
    );

type Values = Record<string, unknown>;
function sides(keys: { inBase: boolean; a: Change; b: Change }[]) {
  const base: Values = {};
  const current: Values = {};
  const proposed: Values = {};
  const both: Values = {};
  keys.forEach((k, i) => {
    const key = KEYS[i]!;
    const original = i % 2 === 0 ? `value ${i}` : [i, `tag ${i}`];
    const apply = (target: Values, change: Change, side: string) => {
      if (change === 'set') target[key] = `${side} ${i}`;
      else if (change === 'keep' && k.inBase) target[key] = original;
    };
    if (k.inBase) base[key] = original;
    apply(current, k.a, 'current');
    apply(proposed, k.b, 'proposed');
    const winner = k.a !== 'keep' ? current : proposed;
    if (Object.hasOwn(winner, key)) both[key] = winner[key];
  });
  return { base, current, proposed, both };
}

const yamlOf = (values: Values) =>
  Object.entries(values)
    .map(([key, value]) => `${key}: ${JSON.stringify(value)}\n`)
    .join('');
const doc = (values: Values, body: string) => `---\n${yamlOf(values)}---\n${body}`;

describe('front matter and metadata, key by key', () => {
  it('merges changes of different keys, even on adjacent lines, with the body merged too', () => {
    fc.assert(
      fc.property(plan(true), (keys) => {
        const v = sides(keys);
        const body = 'one\ntwo\nthree\nfour\n';
        const result = mergeDocument(
          doc(v.base, body),
          doc(v.current, body.replace('one', 'ONE')),
          doc(v.proposed, body.replace('four', 'FOUR')),
        );
        expect(result.kind).toBe('clean');
        if (result.kind !== 'clean') return;
        expect(parseFrontmatter(result.text) ?? {}).toEqual(v.both);
        expect(result.text.endsWith('---\nONE\ntwo\nthree\nFOUR\n')).toBe(true);

        const metadata = mergeMetadata(v.base, v.current, v.proposed);
        expect(metadata).toMatchObject({ kind: 'clean', value: v.both });
      }),
      settings,
    );
  });

  it('conflicts on a key both sides changed differently, naming it, and never merges it silently', () => {
    fc.assert(
      fc.property(plan(false), (keys) => {
        const v = sides(keys);
        const clash = keys
          .map((k, i) => ({ ...k, key: KEYS[i]! }))
          .filter((k) => k.a !== 'keep' && k.b !== 'keep' && !(k.a === 'delete' && k.b === 'delete'));
        const result = mergeDocument(
          doc(v.base, 'body\n'),
          doc(v.current, 'body\n'),
          doc(v.proposed, 'body\n'),
        );
        const metadata = mergeMetadata(v.base, v.current, v.proposed);
        if (clash.length === 0) {
          expect(result.kind).toBe('clean');
          expect(metadata.kind).toBe('clean');
          return;
        }
        expect(result.kind).toBe('conflict');
        expect(metadata).toEqual({ kind: 'conflict', keys: expect.arrayContaining(clash.map((k) => k.key)) });
        if (metadata.kind === 'conflict') expect(metadata.keys).toHaveLength(clash.length);
        if (result.kind === 'conflict') {
          expect(result.hunks).toHaveLength(clash.length);
          for (const k of clash)
            expect(
              result.hunks.some((h) => h.current.startsWith(`${k.key}:`) || h.draft.startsWith(`${k.key}:`)),
            ).toBe(true);
        }
      }),
      settings,
    );
  });

  it('keeps comments and formatting when the block merges by lines', () => {
    const base = '---\n# the title\ntitle: Old\n\ntags: [a]  # list\nx: 1\n---\nbody\n';
    const current = base.replace('title: Old', 'title: New');
    const proposed = base.replace('x: 1', 'x: 2');
    expect(mergeDocument(base, current, proposed)).toEqual({
      kind: 'clean',
      text: '---\n# the title\ntitle: New\n\ntags: [a]  # list\nx: 2\n---\nbody\n',
      merged: true,
    });
  });

  it("keys changed on adjacent lines: current's block with proposed's nodes, their style kept", () => {
    const base = '---\ntitle: Plan # the name\ntags: [a]\nlist:\n  - x\n---\nbody\n';
    const current = base.replace('title: Plan', 'title: Plan 2');
    const proposed = base.replace('tags: [a]', 'tags: [a, b]').replace('list:\n  - x\n', '');
    expect(mergeDocument(base, current, proposed)).toEqual({
      kind: 'clean',
      text: '---\ntitle: Plan 2 # the name\ntags: [a, b]\n---\nbody\n',
      merged: true,
    });
  });

  it('merges a block that is not YAML by lines, and gives a metadata side unchanged back as is', () => {
    const base = '---\n: [\nA\n\nB\n---\nbody\n';
    expect(mergeDocument(base, base.replace('A', 'A2'), base.replace('B', 'B2'))).toMatchObject({
      kind: 'clean',
      text: '---\n: [\nA2\n\nB2\n---\nbody\n',
    });
    const proposed = { z: 1 };
    expect(mergeMetadata({ a: 1 }, { a: 1 }, proposed)).toEqual({
      kind: 'clean',
      value: proposed,
      merged: false,
    });
  });
});
