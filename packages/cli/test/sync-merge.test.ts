import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createClient, type MdStoreClient } from '@mdstore/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RealServer, startRealServer } from '../../client/test/support/server.js';
import type { SyncReport } from '../src/index.js';
import { readTree, removeFolder, runCli, tempFolder } from './support/cli.js';

/**
 * `sync` merges (extensions §13, issue 38): two-sided edits that do not overlap are merged on both
 * sides, overlapping ones keep today's conflict copy, `--no-merge` keeps today's behaviour, and a
 * replay of concurrent edit pairs made from real text (the CommonMark spec's sections) loses no edit.
 */
let server: RealServer;
let env: Record<string, string>;
let remote: MdStoreClient;
let projectId: string;
const folders: string[] = [];

beforeAll(async () => {
  server = await startRealServer();
});
afterAll(async () => {
  await server?.stop();
});
beforeEach(async () => {
  const account = await server.account();
  env = { MDSTORE_URL: server.url, MDSTORE_API_KEY: account.apiKey };
  remote = createClient({ baseUrl: server.url, apiKey: account.apiKey });
  projectId = account.defaultProjectId;
});
afterEach(async () => {
  await Promise.all(folders.splice(0).map(removeFolder));
});

async function folder(files: Record<string, string> = {}) {
  const dir = await tempFolder(files);
  folders.push(dir);
  return dir;
}

async function sync(dir: string, ...flags: string[]) {
  const result = await runCli(['sync', dir, '--json', ...flags], { env });
  return { code: result.code, report: JSON.parse(result.stdout) as SyncReport, stderr: result.stderr };
}

const actions = (report: SyncReport) =>
  Object.fromEntries(report.items.map((item) => [item.name, item.action]));

const PLAN =
  '---\ntitle: Plan\ntags: [a]\n---\n# Plan\n\nFirst paragraph.\n\nSecond paragraph.\n\nThird paragraph.\n';

describe('sync merges two-sided edits', () => {
  it('edits that do not overlap are merged: both sides end with the merged text, exit 0', async () => {
    const dir = await folder({ 'plan.md': PLAN });
    await sync(dir);
    const local = PLAN.replace('First paragraph.', 'First paragraph, edited here.').replace('[a]', '[a, b]');
    await writeFile(path.join(dir, 'plan.md'), local);
    await remote.files.updateContent(
      projectId,
      'plan.md',
      PLAN.replace('Third', 'Third (remote)').replace('title: Plan\n', 'title: Plan 2\n'),
    );
    const merged = await sync(dir);
    expect(merged.code).toBe(0);
    expect(actions(merged.report)).toEqual({ 'plan.md': 'merge' });
    const expected =
      '---\ntitle: Plan 2\ntags: [a, b]\n---\n# Plan\n\nFirst paragraph, edited here.\n\nSecond paragraph.\n\nThird (remote) paragraph.\n';
    expect(await readTree(dir)).toEqual({ 'plan.md': expected });
    expect(await remote.files.readText(projectId, 'plan.md')).toBe(expected);
    expect((await sync(dir)).report.items).toEqual([]);
  });

  it('overlapping edits keep the conflict copy; --no-merge keeps it for any two-sided edit', async () => {
    const dir = await folder({ 'a.md': PLAN, 'b.md': PLAN });
    await sync(dir);
    await writeFile(path.join(dir, 'a.md'), PLAN.replace('Second', 'Mine'));
    await remote.files.updateContent(projectId, 'a.md', PLAN.replace('Second', 'Theirs'));
    await writeFile(path.join(dir, 'b.md'), PLAN.replace('First', 'Mine'));
    await remote.files.updateContent(projectId, 'b.md', PLAN.replace('Third', 'Theirs'));
    const result = await sync(dir, '--no-merge');
    expect(result.code).toBe(3);
    expect(actions(result.report)).toEqual({ 'a.md': 'conflict', 'b.md': 'conflict' });
    const tree = await readTree(dir);
    for (const { name, copy } of result.report.conflicts) {
      expect(tree[name]).toContain('Mine');
      expect(tree[copy]).toContain('Theirs');
    }
    // merging on: b would merge, a still conflicts
    const dir2 = await folder({ 'c.md': PLAN });
    await sync(dir2);
    await writeFile(path.join(dir2, 'c.md'), PLAN.replace('Second', 'Mine'));
    await remote.files.updateContent(projectId, 'c.md', PLAN.replace('Second', 'Theirs'));
    const overlap = await sync(dir2);
    expect(overlap.code).toBe(3);
    expect(actions(overlap.report)).toEqual({ 'c.md': 'conflict' });
    expect(await remote.files.readText(projectId, 'c.md')).toBe(PLAN.replace('Second', 'Theirs'));
  });

  it('a base gone from the history (keep_revisions) falls back to the conflict copy', async () => {
    await remote.projects.update(projectId, { settings: { keep_revisions: 1 } });
    const dir = await folder({ 'plan.md': PLAN });
    await sync(dir);
    await writeFile(path.join(dir, 'plan.md'), PLAN.replace('First', 'Mine'));
    await remote.files.updateContent(projectId, 'plan.md', PLAN.replace('Third', 'Theirs'));
    const result = await sync(dir);
    expect(actions(result.report)).toEqual({ 'plan.md': 'conflict' });
  });
});

/** Sections of the CommonMark spec, each a file of real Markdown prose, code and examples. */
async function corpus(count: number): Promise<string[]> {
  const spec = await readFile(
    path.resolve(import.meta.dirname, '../../../node_modules/commonmark-spec/spec.txt'),
    'utf8',
  );
  return spec
    .split(/\n(?=## )/)
    .filter((section) => section.split('\n').length >= 12)
    .slice(0, count)
    .map((section) => `${section.trimEnd()}\n`);
}

/** Deterministic choices (a small LCG), so a failure is reproducible. */
function chooser(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % n;
  };
}

/** Lines worth editing: non-blank, unique in the text (an edit of a repeated line is ambiguous). */
function targets(text: string): number[] {
  const lines = text.split('\n');
  const count = new Map<string, number>();
  for (const line of lines) count.set(line, (count.get(line) ?? 0) + 1);
  return lines.flatMap((line, i) => (line.trim() !== '' && count.get(line) === 1 ? [i] : []));
}

const editLine = (text: string, at: number, mark: string) =>
  text
    .split('\n')
    .map((line, i) => (i === at ? `${line} ${mark}` : line))
    .join('\n');

describe('sync replays concurrent edit pairs from real text', () => {
  it('merges every non-overlapping pair, keeps both sides of every overlapping one: 0 lost edits', async () => {
    const texts = await corpus(30);
    expect(texts.length).toBe(30);
    const choose = chooser(38);
    const files: Record<string, string> = {};
    texts.forEach((text, i) => {
      files[`spec-${String(i).padStart(2, '0')}.md`] = text;
    });
    const dir = await folder(files);
    await sync(dir);
    const plan: Array<{ name: string; local: string; remote: string; overlapping: boolean }> = [];
    for (const [k, [name, text]] of Object.entries(files).entries()) {
      const lines = targets(text);
      const overlapping = k % 5 === 4;
      const first = lines[choose(lines.length)]!;
      let second = first;
      if (!overlapping) {
        // another target at least two lines away: an unchanged line between the edits
        const far = lines.filter((line) => Math.abs(line - first) >= 2);
        second = far[choose(far.length)]!;
      }
      const localMark = `[local edit ${k}]`;
      const remoteMark = `[remote edit ${k}]`;
      await writeFile(path.join(dir, name), editLine(text, first, localMark));
      await remote.files.updateContent(projectId, name, editLine(text, second, remoteMark));
      plan.push({ name, local: localMark, remote: remoteMark, overlapping });
    }
    const result = await sync(dir);
    const done = actions(result.report);
    const tree = await readTree(dir);
    const copies = new Map(result.report.conflicts.map((c) => [c.name, c.copy]));
    let merged = 0;
    let lost = 0;
    for (const pair of plan) {
      const here = tree[pair.name]!;
      const there = await remote.files.readText(projectId, pair.name);
      if (pair.overlapping) {
        expect(done[pair.name]).toBe('conflict');
        if (!here.includes(pair.local)) lost++;
        if (!tree[copies.get(pair.name)!]?.includes(pair.remote)) lost++;
      } else {
        if (done[pair.name] === 'merge') merged++;
        expect(here).toBe(there);
        if (!here.includes(pair.local)) lost++;
        if (!here.includes(pair.remote)) lost++;
      }
    }
    expect(lost).toBe(0);
    expect(merged).toBe(plan.filter((p) => !p.overlapping).length);
  }, 120_000);
});
