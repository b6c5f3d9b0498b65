import { describe, expect } from 'vitest';
import { type ReadEntry, readTarGz, readZip, sha256Hex } from '../support/archives.js';
import { craftTarGz, craftZip } from '../support/crafted-archives.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Whole vaults (extensions §10, §12; issue 37 item 3): a generated Obsidian-like vault (notes in
 * folders with wiki links and embeds, PNGs and a PDF) exported as zip and as tar.gz, imported into an
 * empty project, exported again: the same entries with the same bytes, and the same manifest but for
 * dates and revisions. Runs on every adapter pair (the HTTP matrix).
 */
const test = serverTest();

const TYPES = { zip: 'application/zip', 'tar.gz': 'application/gzip' } as const;

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

/** A small vault, the same every run: notes linking and embedding each other and the attachments. */
function generatedVault() {
  const notes: Record<string, string> = {};
  const attachments: Record<string, { bytes: Buffer; type: string }> = {
    // Two PNGs with the same bytes (held once) and one with other bytes (its text chunk differs).
    'assets/diagram.png': { bytes: PNG, type: 'image/png' },
    'Projects/copy of diagram.png': { bytes: PNG, type: 'image/png' },
    'assets/caf\u00e9 \u65e5\u672c.png': {
      bytes: Buffer.concat([PNG, Buffer.from('tail')]),
      type: 'image/png',
    },
    'docs/report Q3.pdf': { bytes: PDF, type: 'application/pdf' },
  };
  const folders = ['Daily', 'Projects', 'Projects/Alpha', 'Areas/Reading'];
  for (const [i, folder] of folders.entries()) {
    for (let n = 0; n < 2; n++) {
      const next = folders[(i + 1) % folders.length];
      notes[`${folder}/Note ${i}-${n}.md`] =
        `---\ntags: [vault, f${i}]\n---\n# Note ${i}-${n}\n\nSee [[Note ${(i + 1) % folders.length}-${n}]] in ${next}, ` +
        `[[${next}/Note ${(i + 1) % folders.length}-0|alias]] and [[#Note ${i}-${n}]].\n\n` +
        `![[diagram.png]] ![[caf\u00e9 \u65e5\u672c.png|100]] [[report Q3.pdf]] ![](../assets/diagram.png)\n`;
    }
  }
  notes['Welcome.md'] = '# Welcome\n\nStart at [[Note 0-0]]. ![[docs/report Q3.pdf]]\n';
  return { notes, attachments };
}

async function vaultProject(h: HttpHarness, apiKey: string) {
  const { id } = await h.createProject(apiKey, 'Vault');
  const { notes, attachments } = generatedVault();
  for (const [filename, text] of Object.entries(notes)) await h.uploadFile(apiKey, id, filename, text);
  for (const [path, { bytes, type }] of Object.entries(attachments)) {
    const put = await h.fetch(`/api/projects/${id}/attachments/${encodeURIComponent(path)}`, {
      method: 'PUT',
      key: apiKey,
      headers: { 'Content-Type': type },
      body: bytes,
    });
    expect(put.status, await put.clone().text()).toBe(201);
  }
  return { projectId: id, notes, attachments };
}

async function exportOf(h: HttpHarness, key: string, projectId: string, format: 'zip' | 'tar.gz') {
  const response = await h.fetch(`/api/projects/${projectId}/export?format=${format}`, { key });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

interface Manifest {
  project: Record<string, unknown>;
  files: Array<Record<string, unknown>>;
  attachments: Array<{ path: string; content_type: string; size: number; sha256: string }>;
}

const manifestOf = (entries: ReadEntry[]) =>
  JSON.parse(entries.find((e) => e.name === 'mdstore.json')!.bytes.toString('utf8')) as Manifest;

/** The manifest without what a copy cannot keep: dates and revisions, and the project's name. */
const comparable = ({ project, ...manifest }: Manifest) => ({
  ...manifest,
  files: manifest.files.map(({ created_date, updated_date, revision, ...rest }) => rest),
});

const contents = (entries: ReadEntry[]) =>
  entries.filter((e) => e.name !== 'mdstore.json').map((e) => [e.name, e.type, sha256Hex(e.bytes)]);

describe('whole vaults: export and import carry attachments', () => {
  for (const format of ['zip', 'tar.gz'] as const) {
    const read = format === 'zip' ? readZip : readTarGz;

    test(`${format}: a vault exported, imported into an empty project and exported again is the same vault`, async (h) => {
      const { apiKey } = await h.account();
      const { projectId, notes, attachments } = await vaultProject(h, apiKey);
      const first = await exportOf(h, apiKey, projectId, format);
      const a = await read(first);
      const names = [...Object.keys(notes), ...Object.keys(attachments)];
      // The files in filename order, then the attachments in path order, then the manifest.
      expect(a.map((e) => e.name)).toEqual([
        ...Object.keys(notes).sort(),
        ...Object.keys(attachments).sort(),
        'mdstore.json',
      ]);
      for (const [path, { bytes }] of Object.entries(attachments)) {
        expect(a.find((e) => e.name === path)?.bytes.equals(bytes), path).toBe(true);
      }
      const manifest = manifestOf(a);
      expect(manifest.attachments).toEqual(
        Object.keys(attachments)
          .sort()
          .map((path) => ({
            path,
            content_type: attachments[path]!.type,
            size: attachments[path]!.bytes.length,
            sha256: sha256Hex(attachments[path]!.bytes),
          })),
      );

      const { id: copyId } = await h.createProject(apiKey, 'Vault copy');
      const response = await h.fetch(`/api/projects/${copyId}/import?importer=obsidian`, {
        method: 'POST',
        key: apiKey,
        headers: { 'Content-Type': TYPES[format] },
        body: first,
      });
      const answer = (await response.json()) as Record<string, unknown>;
      expect(response.status, JSON.stringify(answer)).toBe(200);
      expect(answer).toMatchObject({ created: names.sort(), updated: [], unchanged: [], skipped: [] });
      const project = (await (await h.fetch(`/api/projects/${copyId}`, { key: apiKey })).json()) as Record<
        string,
        unknown
      >;
      expect(project.attachment_count).toBe(4);

      const b = await read(await exportOf(h, apiKey, copyId, format));
      expect(contents(b)).toEqual(contents(a));
      expect(comparable(manifestOf(b))).toEqual(comparable(manifest));

      // Imported again: every file and attachment unchanged, nothing applied.
      const again = await h.fetch(`/api/projects/${copyId}/import`, {
        method: 'POST',
        key: apiKey,
        headers: { 'Content-Type': TYPES[format] },
        body: first,
      });
      expect(await again.json()).toMatchObject({ changeset_id: null, created: [], unchanged: names.sort() });
    });
  }
});

/** `importer=obsidian` (extensions §12): Obsidian's names, and each note's dates from the archive. */
describe('importer=obsidian', () => {
  const day = 24 * 3600 * 1000;
  const older = new Date(Date.UTC(2024, 2, 1, 10, 0, 0));
  const newer = new Date(Date.UTC(2025, 6, 14, 8, 30, 2));
  const entries = [
    { name: 'Projects/Spec.md', data: '# Spec\n', modified: older },
    { name: 'Archive/Spec.md', data: '# Old spec\n', modified: older },
    {
      name: 'Projects/Alpha.md',
      data: '# Alpha\n[[Spec]] ![[diagram.png]] [[spec#Spec|s]]\n',
      modified: newer,
    },
    { name: 'assets/diagram.png', data: PNG, modified: newer },
  ];
  const archives = {
    zip: async () => craftZip(entries),
    'tar.gz': () => craftTarGz(entries.map(({ modified, ...entry }) => ({ ...entry, mtime: modified }))),
  };

  for (const format of ['zip', 'tar.gz'] as const) {
    test(`${format}: links resolve as Obsidian resolves them and notes keep the entries' times`, async (h) => {
      const { apiKey } = await h.account();
      const { id } = await h.createProject(apiKey, 'Obsidian');
      const response = await h.fetch(`/api/projects/${id}/import?importer=obsidian`, {
        method: 'POST',
        key: apiKey,
        headers: { 'Content-Type': TYPES[format] },
        body: await archives[format](),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      const broken = await (await h.fetch(`/api/projects/${id}/links/broken`, { key: apiKey })).json();
      expect(broken).toMatchObject({ links: [] });
      const alpha = await h.fetch(`/api/projects/${id}/files/Projects%2FAlpha.md`, { key: apiKey });
      // The one `diagram.png` is found by its name alone; `[[Spec]]` names the nearer of two.
      expect(await alpha.text()).toBe(
        '# Alpha\n[[Projects/Spec]] ![[diagram.png]] [[Projects/Spec#Spec|s]]\n',
      );
      const list = (await (await h.fetch(`/api/projects/${id}/files?limit=100`, { key: apiKey })).json()) as {
        files: Array<{ filename: string; created_date: string; updated_date: string }>;
      };
      const dates = Object.fromEntries(list.files.map((f) => [f.filename, [f.created_date, f.updated_date]]));
      expect(dates['Projects/Spec.md']).toEqual([older.toISOString(), older.toISOString()]);
      expect(dates['Projects/Alpha.md']).toEqual([newer.toISOString(), newer.toISOString()]);
      expect(Date.now() - Date.parse(dates['Archive/Spec.md']![1]!)).toBeGreaterThan(day);
    });
  }

  test('a vault exported and imported again keeps its notes dates (mdstore.json)', async (h) => {
    const { apiKey } = await h.account();
    const { id } = await h.createProject(apiKey, 'First');
    await h.fetch(`/api/projects/${id}/import?importer=obsidian`, {
      method: 'POST',
      key: apiKey,
      headers: { 'Content-Type': 'application/zip' },
      body: craftZip(entries),
    });
    const first = manifestOf(await readZip(await exportOf(h, apiKey, id, 'zip')));
    const { id: copy } = await h.createProject(apiKey, 'Copy');
    const imported = await h.fetch(`/api/projects/${copy}/import?importer=obsidian`, {
      method: 'POST',
      key: apiKey,
      headers: { 'Content-Type': 'application/zip' },
      body: await exportOf(h, apiKey, id, 'zip'),
    });
    expect(imported.status).toBe(200);
    const second = manifestOf(await readZip(await exportOf(h, apiKey, copy, 'zip')));
    const datesOf = (manifest: Manifest) =>
      manifest.files.map(({ filename, created_date, updated_date }) => [
        filename,
        created_date,
        updated_date,
      ]);
    expect(datesOf(second)).toEqual(datesOf(first));
    expect(datesOf(first)).toContainEqual(['Projects/Spec.md', older.toISOString(), older.toISOString()]);
  });
});
