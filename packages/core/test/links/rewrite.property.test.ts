import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linkEntry } from '../../src/links/entry.js';
import { extractLinks } from '../../src/links/extract.js';
import { relativePath, stemOf } from '../../src/links/paths.js';
import { TargetIndex } from '../../src/links/resolve.js';
import { planLinkRewrites } from '../../src/links/rewrite.js';
import type { LinkTargetRecord } from '../../src/model/records.js';

/**
 * The rewriting property (extensions §9): in a folder tree of files linking to each other in every
 * supported form, move any file or folder and apply the planned rewrites: every link that resolved
 * before resolves to the same file after, and every byte outside the rewritten destinations is kept.
 */

const FOLDERS = ['', 'a/', 'a/b/', 'c/', 'd e/'];
const NAMES = ['x', 'y', 'note', 'Ünï'];
const EXTENSIONS = ['.md', '.mdx'];

const filenameArb = fc
  .tuple(fc.constantFrom(...FOLDERS), fc.constantFrom(...NAMES), fc.constantFrom(...EXTENSIONS))
  .map(([folder, name, extension]) => `${folder}${name}${extension}`);

type Form =
  | 'inline'
  | 'dot'
  | 'angle'
  | 'anchor'
  | 'image'
  | 'reference'
  | 'wiki-full'
  | 'wiki-ext'
  | 'wiki-bare'
  | 'wiki-alias'
  | 'wiki-heading';
const FORMS: Form[] = [
  'inline',
  'dot',
  'angle',
  'anchor',
  'image',
  'reference',
  'wiki-full',
  'wiki-ext',
  'wiki-bare',
  'wiki-alias',
  'wiki-heading',
];

const encode = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/** One link from `source` to `target`, written in `form`, and a reference definition when it needs one. */
function writeLink(source: string, target: string, form: Form, n: number, all: readonly string[]) {
  const rel = relativePath(source, target);
  const bare = target.replace(/\.mdx?$/, '');
  switch (form) {
    case 'inline':
      return { text: `[to ${n}](${encode(rel)})` };
    case 'dot':
      return { text: `[dot](${rel.startsWith('../') ? '' : './'}${encode(rel)})` };
    case 'angle':
      return { text: `[angle](<${rel}>)` };
    case 'anchor':
      return { text: `[anchor](${encode(rel)}#part "title")` };
    case 'image':
      return { text: `![img ${n}](${encode(rel)})` };
    case 'reference':
      return { text: `[ref][r${n}]`, definition: `[r${n}]: ${encode(rel)}` };
    case 'wiki-full':
      return { text: `[[${bare}]]` };
    case 'wiki-ext':
      return { text: `[[${target}]]` };
    case 'wiki-bare': {
      // The bare last segment only where it names the target alone (else the link resolves elsewhere).
      const stem = stemOf(target);
      const exact = all.some((name) => [stem, `${stem}.md`, `${stem}.mdx`].includes(name));
      const unique = all.filter((name) => stemOf(name) === stem).length === 1;
      return { text: `[[${!exact && unique ? stem : bare}]]` };
    }
    case 'wiki-alias':
      return { text: `[[${bare}|the alias]]` };
    case 'wiki-heading':
      return { text: `[[${bare}#Part]]` };
  }
}

const scenarioArb = fc.uniqueArray(filenameArb, { minLength: 2, maxLength: 6 }).chain((names) =>
  fc.record({
    names: fc.constant(names),
    links: fc.array(fc.tuple(fc.nat(names.length - 1), fc.nat(names.length - 1), fc.constantFrom(...FORMS)), {
      maxLength: 14,
    }),
    move: fc.oneof(
      fc.record({ kind: fc.constant('file' as const), index: fc.nat(names.length - 1), to: filenameArb }),
      fc.record({
        kind: fc.constant('folder' as const),
        from: fc.constantFrom(...FOLDERS.filter(Boolean)),
        to: fc.constantFrom('moved/', 'a/b/c/', 'z y/', ''),
      }),
    ),
  }),
);

function contentsOf(
  names: readonly string[],
  links: ReadonlyArray<[number, number, Form]>,
): Map<string, string> {
  const contents = new Map<string, string[]>(
    names.map((name) => [name, ['# Title', '', '## Part', '', 'Text `[code](x.md)` here.']]),
  );
  const definitions = new Map<string, string[]>(names.map((name) => [name, []]));
  links.forEach(([from, to, form], n) => {
    const source = names[from]!;
    const written = writeLink(source, names[to]!, form, n, names);
    contents.get(source)!.push(`Line ${n}: ${written.text} end.`);
    if (written.definition) definitions.get(source)!.push(written.definition);
  });
  return new Map(
    names.map((name) => [name, [...contents.get(name)!, '', ...definitions.get(name)!, ''].join('\n')]),
  );
}

function targetsOf(contents: ReadonlyMap<string, string>): LinkTargetRecord[] {
  return [...contents].map(([filename, content]) => {
    const found = extractLinks(content, { mdx: filename.endsWith('.mdx') });
    return {
      fileId: filename,
      filename,
      stem: stemOf(filename),
      slugs: found.slugs,
      headings: found.headings,
    };
  });
}

function movesOf(
  names: readonly string[],
  move: { kind: 'file'; index: number; to: string } | { kind: 'folder'; from: string; to: string },
) {
  const moved = new Map<string, string>();
  if (move.kind === 'file') moved.set(names[move.index]!, move.to);
  else
    for (const name of names)
      if (name.startsWith(move.from)) moved.set(name, move.to + name.slice(move.from.length));
  return moved;
}

describe('planLinkRewrites (property)', () => {
  it('every link that resolved before resolves to the same file after; nothing else changes', () => {
    // Guards against a vacuous property: links were checked, and rewritten, in many runs.
    let checked = 0;
    let rewrittenLinks = 0;
    fc.assert(
      fc.property(scenarioArb, ({ names, links, move }) => {
        const moved = movesOf(names, move);
        const after = names.map((name) => moved.get(name) ?? name);
        fc.pre(new Set(after).size === after.length);
        const contents = contentsOf(names, links);
        const entries = new Map(
          names.map((name) => {
            const found = extractLinks(contents.get(name)!, { mdx: name.endsWith('.mdx') });
            return [name, linkEntry({ id: name, projectId: 'p', filename: name }, found)];
          }),
        );
        const before = new TargetIndex(targetsOf(contents));
        const afterTargets = targetsOf(contents).map((target) => {
          const filename = moved.get(target.filename) ?? target.filename;
          return { ...target, filename, stem: stemOf(filename) };
        });
        const afterIndex = new TargetIndex(afterTargets);
        const plan = planLinkRewrites({
          moved,
          files: names.map((name) => ({
            filename: name,
            content: contents.get(name)!,
            links: entries.get(name)!.links,
          })),
          before: (link, source) => before.resolve(link, source).target?.filename ?? null,
          after: (link, source) => afterIndex.resolve(link, source).target?.filename ?? null,
        });
        expect(plan.unrewritable).toEqual([]);
        const rewritten = new Map(plan.files.map((file) => [file.filename, file]));
        for (const file of plan.files) rewrittenLinks += file.links;
        for (const name of names) {
          const entry = entries.get(name)!;
          const file = rewritten.get(name);
          const newName = moved.get(name) ?? name;
          const newContent = file?.content ?? contents.get(name)!;
          // Only destinations are replaced: every replacement is exactly a link's written range.
          const ranges = new Set(entry.links.map((link) => `${link.start}-${link.end}`));
          for (const replacement of file?.replacements ?? []) {
            expect(ranges.has(`${replacement.start}-${replacement.end}`)).toBe(true);
          }
          const newLinks = linkEntry(
            { id: name, projectId: 'p', filename: newName },
            extractLinks(newContent, { mdx: newName.endsWith('.mdx') }),
          ).links;
          expect(newLinks.map((link) => [link.kind, link.line])).toEqual(
            entry.links.map((link) => [link.kind, link.line]),
          );
          entry.links.forEach((link, index) => {
            const target = before.resolve(link, name).target?.filename ?? null;
            if (target === null) return;
            const now = afterIndex.resolve(newLinks[index]!, newName).target?.filename ?? null;
            expect(now, `${name} line ${link.line}: ${link.raw}`).toBe(moved.get(target) ?? target);
            checked += 1;
            expect(newLinks[index]!.anchor).toBe(link.anchor);
          });
        }
      }),
      { numRuns: 150 },
    );
    expect(checked).toBeGreaterThan(300);
    expect(rewrittenLinks).toBeGreaterThan(100);
  });

  it('keeps the form: relative path, ./, angle brackets, anchor, alias, extension or not', () => {
    const contents = new Map([
      ['docs/guide.md', '# G\n'],
      [
        'docs/index.md',
        '[a](./guide.md#top) [b](<guide.md>) [[docs/guide|Alias]] [[docs/guide.md#G]] [[guide]]\n\n[r][x]\n\n[x]: guide.md\n',
      ],
    ]);
    const moved = new Map([['docs/guide.md', 'docs/sub/setup guide.md']]);
    const targets = targetsOf(contents);
    const before = new TargetIndex(targets);
    const after = new TargetIndex(
      targets.map((t) =>
        t.filename === 'docs/guide.md'
          ? { ...t, filename: 'docs/sub/setup guide.md', stem: 'setup guide' }
          : t,
      ),
    );
    const index = 'docs/index.md';
    const entry = linkEntry(
      { id: index, projectId: 'p', filename: index },
      extractLinks(contents.get(index)!, { mdx: false }),
    );
    const plan = planLinkRewrites({
      moved,
      files: [{ filename: index, content: contents.get(index)!, links: entry.links }],
      before: (link, source) => before.resolve(link, source).target?.filename ?? null,
      after: (link, source) => after.resolve(link, source).target?.filename ?? null,
    });
    expect(plan.files[0]!.content).toBe(
      '[a](./sub/setup%20guide.md#top) [b](<sub/setup%20guide.md>) [[docs/sub/setup guide|Alias]] [[docs/sub/setup guide.md#G]] [[setup guide]]\n\n[r][x]\n\n[x]: sub/setup%20guide.md\n',
    );
    expect(plan.files[0]!.links).toBe(6);
  });
});
