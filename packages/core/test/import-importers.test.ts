import { describe, expect, it } from 'vitest';
import { portableHashing as nodeCryptoHashing } from '../src/defaults/web-runtime.js';
import { fileEtag } from '../src/model/etags.js';
import { entryVerdict, SKIP_REASONS } from '../src/use-cases/import/entries.js';
import { applyImporter, type ImportedFile, withoutNotionIds } from '../src/use-cases/import/importers.js';
import { planImport, type SpooledFile } from '../src/use-cases/import/index.js';
import { rewriteLinkDestinations } from '../src/use-cases/import/links.js';

/**
 * The pure half of an import (extensions §10): what an entry becomes by its name and kind, what each
 * importer does to the files of a real-shaped export, and how the files compare with the stored ones.
 */

const file = (filename: string, text: string): ImportedFile => ({ filename, text });
const names = (files: ImportedFile[]) => files.map((f) => f.filename);
const textOf = (files: ImportedFile[], filename: string) => files.find((f) => f.filename === filename)?.text;

describe('entry rules', () => {
  it.each([
    ['notes/a.md', 'file', { take: 'file', filename: 'notes/a.md' }],
    ['./notes/b.mdx', 'file', { take: 'file', filename: 'notes/b.mdx' }],
    ['mdstore.json', 'file', { take: 'manifest' }],
    ['sub/mdstore.json', 'file', { take: 'attachment', path: 'sub/mdstore.json' }],
    ['notes/', 'directory', { take: 'skip', reason: SKIP_REASONS.directory }],
    ['link.md', 'symlink', { take: 'skip', reason: SKIP_REASONS.symlink }],
    ['fifo.md', 'other', { take: 'skip', reason: SKIP_REASONS.special }],
    ['/etc/x.md', 'file', { take: 'skip', reason: SKIP_REASONS.absolute }],
    ['C:/x.md', 'file', { take: 'skip', reason: SKIP_REASONS.absolute }],
    ['../x.md', 'file', { take: 'skip', reason: SKIP_REASONS.parent }],
    ['a/../../x.md', 'file', { take: 'skip', reason: SKIP_REASONS.parent }],
    ['.obsidian/workspace.md', 'file', { take: 'skip', reason: SKIP_REASONS.dotFolder }],
    ['vault/.trash/old.md', 'file', { take: 'skip', reason: SKIP_REASONS.dotFolder }],
    ['attachments/photo.png', 'file', { take: 'attachment', path: 'attachments/photo.png' }],
    ['./img/a b.PDF', 'file', { take: 'attachment', path: 'img/a b.PDF' }],
  ] as const)('%s (%s)', (name, kind, verdict) => {
    expect(entryVerdict(name, kind)).toEqual(verdict);
  });

  it('holds Markdown names to the filename rules, with their message as the reason', async () => {
    const verdict = entryVerdict('a//b.md', 'file');
    expect(verdict.take).toBe('skip');
    expect((verdict as { reason: string }).reason).toMatch(/^breaks the filename rules: /);
    expect(entryVerdict('folder.md/x.md', 'file').take).toBe('skip');
    expect(entryVerdict(`${'n'.repeat(256)}.md`, 'file').take).toBe('skip');
  });
});

describe('notion', () => {
  const ID1 = '0123456789abcdef0123456789abcdef';
  const ID2 = 'fedcba9876543210fedcba9876543210';
  const ID3 = 'aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbb';
  // The shape of a Notion "Markdown & CSV" export: a page, its sub-pages in a folder of the same name.
  const exported = [
    file(
      `Team Wiki ${ID1}.md`,
      `# Team Wiki\n\nSee [Onboarding](Team%20Wiki%20${ID1}/Onboarding%20${ID2}.md) and ` +
        `[the FAQ](Team%20Wiki%20${ID1}/FAQ%20(draft)%20${ID3}.md#top).\n\n` +
        '```\n[not a link](Team%20Wiki%20' +
        `${ID1}/Onboarding%20${ID2}.md)\n` +
        '```\n',
    ),
    file(`Team Wiki ${ID1}/Onboarding ${ID2}.md`, `Back to [the wiki](../Team%20Wiki%20${ID1}.md).\n`),
    file(
      `Team Wiki ${ID1}/FAQ (draft) ${ID3}.md`,
      `[Onboarding](Onboarding%20${ID2}.md) https://notion.so/x\n`,
    ),
  ];

  it('cleans names of the id suffixes, folders included', async () => {
    expect(names(await applyImporter('notion', exported))).toEqual([
      'Team Wiki.md',
      'Team Wiki/Onboarding.md',
      'Team Wiki/FAQ (draft).md',
    ]);
    expect(withoutNotionIds(`a ${ID1}/b ${ID2}.mdx`)).toBe('a/b.mdx');
    expect(withoutNotionIds(`no-space${ID1}.md`)).toBe(`no-space${ID1}.md`);
  });

  it('rewrites links between the pages to the cleaned names, percent-encoded, anchors kept', async () => {
    const cleaned = await applyImporter('notion', exported);
    expect(textOf(cleaned, 'Team Wiki.md')).toBe(
      '# Team Wiki\n\nSee [Onboarding](Team%20Wiki/Onboarding.md) and ' +
        '[the FAQ](Team%20Wiki/FAQ%20%28draft%29.md#top).\n\n' +
        // Inside a code block: left as it was.
        `\`\`\`\n[not a link](Team%20Wiki%20${ID1}/Onboarding%20${ID2}.md)\n\`\`\`\n`,
    );
    expect(textOf(cleaned, 'Team Wiki/Onboarding.md')).toBe('Back to [the wiki](../Team%20Wiki.md).\n');
    expect(textOf(cleaned, 'Team Wiki/FAQ (draft).md')).toBe(
      '[Onboarding](Onboarding.md) https://notion.so/x\n',
    );
  });

  it('keeps the suffix of a page whose clean name another page already took', async () => {
    const twins = [file(`Notes ${ID1}.md`, 'a'), file(`Notes ${ID2}.md`, `[a](Notes%20${ID1}.md)`)];
    const cleaned = await applyImporter('notion', twins);
    expect(names(cleaned)).toEqual(['Notes.md', `Notes ${ID2}.md`]);
    expect(textOf(cleaned, `Notes ${ID2}.md`)).toBe('[a](Notes.md)');
  });
});

describe('gitbook', () => {
  // A GitBook export: SUMMARY.md, a README.md per folder, links to folders.
  const book = [
    file('README.md', '# Book\n'),
    file('SUMMARY.md', '* [Intro](README.md)\n* [Guides](guides/)\n  * [Setup](guides/setup.md)\n'),
    file('guides/README.md', '# Guides\n\n[Up](../) [Missing](nowhere/)\n'),
    file('guides/setup.md', '# Setup\n\n[Guides](./#top) [site](https://gitbook.com/)\n'),
  ];

  it('keeps every page at its path and turns links to a folder into links to its README.md', async () => {
    const out = await applyImporter('gitbook', book);
    expect(names(out)).toEqual(names(book));
    expect(textOf(out, 'SUMMARY.md')).toBe(
      '* [Intro](README.md)\n* [Guides](guides/README.md)\n  * [Setup](guides/setup.md)\n',
    );
    expect(textOf(out, 'guides/README.md')).toBe('# Guides\n\n[Up](../README.md) [Missing](nowhere/)\n');
    expect(textOf(out, 'guides/setup.md')).toBe(
      '# Setup\n\n[Guides](./README.md#top) [site](https://gitbook.com/)\n',
    );
  });
});

describe('obsidian and plain', () => {
  it('take the files as they are: front matter, wiki links and embeds verbatim', async () => {
    const vault = [
      file('Daily/2026-11-27.md', '---\ntags: [daily]\n---\n[[Projects/Alpha|Alpha]] ![[diagram.png]]\n'),
      file('Projects/Alpha.md', '# Alpha\n[[2026-11-27#Morning]]\n'),
    ];
    expect(await applyImporter('obsidian', vault)).toEqual(vault);
    expect(await applyImporter('plain', vault)).toEqual(vault);
  });
});

describe('links', () => {
  it('leave code spans and fenced blocks alone', async () => {
    const text = 'a `[x](y.md)` [x](y.md)\n~~~\n[x](y.md)\n~~~\n[x](y.md)';
    expect(rewriteLinkDestinations(text, () => 'z.md')).toBe(
      'a `[x](y.md)` [x](z.md)\n~~~\n[x](y.md)\n~~~\n[x](z.md)',
    );
  });
});

describe('planImport', () => {
  const sha = (text: string) => {
    const hash = nodeCryptoHashing.sha256();
    hash.update(new TextEncoder().encode(text));
    return hash.digestHex();
  };
  const stored = new Map([
    [
      'same.md',
      { id: 'i1', revision: 1, filename: 'same.md', sha256: sha('same'), metadataJson: '{"a":1,"b":[2]}' },
    ],
    ['meta.md', { id: 'i2', revision: 2, filename: 'meta.md', sha256: sha('meta'), metadataJson: '{"a":1}' }],
    ['text.md', { id: 'i3', revision: 1, filename: 'text.md', sha256: sha('old'), metadataJson: null }],
    ['gone.md', { id: 'i4', revision: 7, filename: 'gone.md', sha256: sha('gone'), metadataJson: null }],
  ]);
  // As the import keeps them: no text, a digest and where the bytes are in its spool.
  const spooled = (filename: string, text: string, offset: number) => ({
    filename,
    ref: { offset, size: text.length },
    sha256: sha(text),
  });
  const files: SpooledFile[] = [
    { ...spooled('same.md', 'same', 0), metadata: { b: [2], a: 1 } },
    { ...spooled('meta.md', 'meta', 1), metadata: { a: 2 } },
    spooled('text.md', 'new', 2),
    spooled('new.md', 'fresh', 3),
  ];

  it('merge: equal content and metadata (key order aside) is unchanged; the rest is put', async () => {
    const plan = planImport(files, stored, 'merge');
    expect(plan.answer).toEqual({
      created: ['new.md'],
      updated: ['meta.md', 'text.md'],
      unchanged: ['same.md'],
      deleted: [],
    });
    expect(plan.operations.map((op) => `${op.op} ${op.filename}`)).toEqual([
      'put meta.md',
      'put new.md',
      'put text.md',
    ]);
    // Each put names its content in the spool, not a text.
    expect(plan.operations.find((op) => op.filename === 'new.md')).toMatchObject({
      content: { ref: { offset: 3, size: 5 }, sha256: sha('fresh') },
    });
    // No metadata in the archive: the stored metadata stays.
    expect(plan.operations.find((op) => op.filename === 'text.md')).toMatchObject({ metadata: null });
    // Each put is pinned to the file compared: its ETag, or null for a new one.
    expect(plan.operations.find((op) => op.filename === 'new.md')).toMatchObject({ ifMatch: null });
    expect(plan.operations.find((op) => op.filename === 'meta.md')).toMatchObject({
      ifMatch: fileEtag({ id: 'i2', revision: 2 }),
    });
  });

  it('replace: files the archive lacks are deleted', async () => {
    const plan = planImport(files, stored, 'replace');
    expect(plan.answer.deleted).toEqual(['gone.md']);
    expect(plan.operations.at(-1)).toEqual({
      op: 'delete',
      filename: 'gone.md',
      ifMatch: fileEtag({ id: 'i4', revision: 7 }),
    });
  });
});
