import type { ArchiveEntry, ImportArchive } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { applyImporter, type ImportedFile } from '../src/use-cases/import/importers.js';
import { anAccount, createFixture, START } from './support/fixture.js';

/**
 * `importer=obsidian` (extensions §12, issue 37 item 3): links resolved the way Obsidian resolves them
 * (the nearest note of a name, names without regard to case, an attachment by its name alone) and
 * written so the link index resolves them alike; each note keeps its dates from the archive.
 */

const file = (filename: string, text: string): ImportedFile => ({ filename, text });
const textOf = (files: readonly ImportedFile[], filename: string) =>
  files.find((f) => f.filename === filename)?.text;

describe('obsidian links', () => {
  const vault = [
    file('Home.md', '# Home\n[[Spec#Goals]] [[Alpha]] [[alpha|the alpha]] `[[Spec]]`\n'),
    file(
      'Projects/Alpha.md',
      '# Alpha\n[[Spec]] ![[diagram.png]] ![d](diagram.png) [[Old/Spec]] [[report.pdf]] [[REPORT.pdf]]\n',
    ),
    file('Projects/Spec.md', '# Spec\n## Goals\n'),
    file('Archive/Old/Spec.md', '# Old spec\n'),
    file('Archive/Old/Note.md', '[[Spec|the spec]] [[Missing]] [[Spec.md]] ![[diagram.png|100]]\n'),
  ];
  const attachments = ['assets/diagram.png', 'Archive/Old/diagram.png', 'docs/report.pdf'];

  it('rewrites what the link index would resolve otherwise, to the note Obsidian opens', async () => {
    const out = await applyImporter('obsidian', vault, attachments);
    expect(out.map((f) => f.filename)).toEqual(vault.map((f) => f.filename));
    // From the root, `Projects/` is one step away and `Archive/Old/` two; code spans are not links.
    expect(textOf(out, 'Home.md')).toBe(
      '# Home\n[[Projects/Spec#Goals]] [[Alpha]] [[Alpha|the alpha]] `[[Spec]]`\n',
    );
    // The same folder first; of two attachments of one name the nearer (two steps against three); a
    // Markdown link relative to the note; a path with folders matches the end of a path; a unique name
    // the index resolves stays, another case does not.
    expect(textOf(out, 'Projects/Alpha.md')).toBe(
      '# Alpha\n[[Projects/Spec]] ![[assets/diagram.png]] ![d](../assets/diagram.png) [[Archive/Old/Spec]] [[report.pdf]] [[report.pdf]]\n',
    );
    expect(textOf(out, 'Archive/Old/Note.md')).toBe(
      '[[Archive/Old/Spec|the spec]] [[Missing]] [[Archive/Old/Spec.md]] ![[Archive/Old/diagram.png|100]]\n',
    );
    // A note without links to rewrite is byte for byte the same.
    expect(textOf(out, 'Projects/Spec.md')).toBe('# Spec\n## Goals\n');
  });

  it('leaves a vault whose links the index resolves as Obsidian does unchanged', async () => {
    const unique = [
      file('Daily/2026-11-27.md', '---\ntags: [daily]\n---\n[[Projects/Alpha|Alpha]] ![[diagram.png]]\n'),
      // `../` names a path from the note's folder only: a broken one stays as it is.
      file(
        'Projects/Alpha.md',
        '# Alpha\n[[2026-11-27#Morning]] [x](../Daily/2026-11-27.md) ![](../x/diagram.png)\n',
      ),
    ];
    expect(await applyImporter('obsidian', unique, ['diagram.png'])).toEqual(unique);
  });

  it('plain takes the same vault as it is', async () => {
    expect(await applyImporter('plain', vault, attachments)).toEqual(vault);
  });
});

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

async function* archiveOf(
  entries: Record<string, { data: string | Uint8Array; modifiedAt?: number }>,
): ImportArchive {
  for (const [name, { data, modifiedAt }] of Object.entries(entries)) {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    const entry: ArchiveEntry = {
      name,
      kind: 'file',
      size: bytes.length,
      ...(modifiedAt !== undefined && { modifiedAt }),
      read: async () => bytes,
    };
    yield entry;
  }
}

describe('obsidian import through the store', () => {
  const day = 24 * 3600 * 1000;
  const vault = () => ({
    'Projects/Spec.md': { data: '# Spec\n', modifiedAt: START - 30 * day },
    'Archive/Spec.md': { data: '# Old\n', modifiedAt: START - 400 * day },
    'Projects/Alpha.md': { data: '[[Spec]] ![[diagram.png]]\n', modifiedAt: START - 2 * day },
    'Future.md': { data: '# Later\n', modifiedAt: START + 10 * day },
    'assets/diagram.png': { data: PNG, modifiedAt: START - 5 * day },
  });

  async function scene() {
    const f = createFixture();
    const alice = await anAccount(f.store, 'alice');
    const at = { principal: alice.principal, projectId: alice.defaultProjectId };
    f.clock.advance(day);
    return { ...f, at };
  }

  it('resolves every link, and keeps each new note dates from the archive (never in the future)', async () => {
    const { store, at, clock } = await scene();
    const result = await store.projects.import({ ...at, importer: 'obsidian', archive: archiveOf(vault()) });
    expect(result.created).toContain('Projects/Alpha.md');
    expect((await store.links.broken(at)).links).toEqual([]);
    const alpha = await store.files.links({ ...at, filename: 'Projects/Alpha.md' });
    expect(alpha.outgoing.map((link) => link.target)).toEqual(['Projects/Spec.md', 'assets/diagram.png']);
    const read = async (filename: string) => (await store.files.read({ ...at, filename, open: false })).file;
    expect(await read('Projects/Spec.md')).toMatchObject({
      createdAt: START - 30 * day,
      updatedAt: START - 30 * day,
    });
    expect(await read('Archive/Spec.md')).toMatchObject({ updatedAt: START - 400 * day });
    // A date past the import's time is the import's time.
    expect(await read('Future.md')).toMatchObject({ createdAt: clock.now(), updatedAt: clock.now() });
    // The revision is dated when it was written.
    const revisions = await store.files.listRevisions({ ...at, filename: 'Projects/Spec.md' });
    expect(revisions.revisions.map((r) => r.createdAt)).toEqual([clock.now()]);
  });

  it("takes mdstore.json's dates before the entries' times", async () => {
    const { store, at } = await scene();
    const manifest = JSON.stringify({
      files: [
        {
          filename: 'Projects/Spec.md',
          metadata: null,
          created_date: '2023-03-01T10:00:00.000Z',
          updated_date: '2023-06-01T10:00:00Z',
        },
        { filename: 'Archive/Spec.md', metadata: null, created_date: 'yesterday', updated_date: 3 },
      ],
    });
    await store.projects.import({
      ...at,
      importer: 'obsidian',
      archive: archiveOf({ ...vault(), 'mdstore.json': { data: manifest } }),
    });
    const read = async (filename: string) => (await store.files.read({ ...at, filename, open: false })).file;
    expect(await read('Projects/Spec.md')).toMatchObject({
      createdAt: Date.parse('2023-03-01T10:00:00.000Z'),
      updatedAt: Date.parse('2023-06-01T10:00:00Z'),
    });
    // Dates that are no instants: the entry's time.
    expect(await read('Archive/Spec.md')).toMatchObject({ updatedAt: START - 400 * day });
  });

  it('plain keeps the import time and the links as written; an obsidian update keeps the date moving forward', async () => {
    const { store, at, clock } = await scene();
    await store.projects.import({ ...at, archive: archiveOf(vault()) });
    expect((await store.files.read({ ...at, filename: 'Projects/Spec.md', open: false })).file).toMatchObject(
      {
        createdAt: clock.now(),
      },
    );
    const broken = (await store.links.broken(at)).links.map((link) => [link.raw, link.reason]);
    // The index resolves the one attachment of a name by that name alone (extensions §12).
    expect(broken).toEqual([['Spec', 'ambiguous']]);
    clock.advance(day);
    const again = vault();
    again['Projects/Spec.md'] = { data: '# Spec v2\n', modifiedAt: START - 3 * day };
    await store.projects.import({ ...at, importer: 'obsidian', archive: archiveOf(again) });
    expect((await store.files.read({ ...at, filename: 'Projects/Spec.md', open: false })).file).toMatchObject(
      {
        createdAt: clock.now() - day,
        updatedAt: clock.now(),
      },
    );
  });
});
