import { describe, expect } from 'vitest';
import { selectedAdapterName } from '../support/adapters.js';
import {
  expectNothingLeftBehind,
  type FileAnswer,
  sha256Hex,
  spyingAdapters,
} from '../support/conditional.js';
import type { HttpHarness } from '../support/http-harness.js';
import { serverTest } from '../support/http-harness.js';
import { type RaceAnswer, type RaceRequest, race, soleWinner } from '../support/race.js';

/**
 * Writes that honour If-Match atomically (extensions §2): of 20 concurrent writers carrying the same
 * ETag exactly one succeeds and the others get 412 (404 once a delete won), whatever the adapters; the
 * final state is the winner's; nothing a loser sent is kept. Every writer is past the first If-Match check
 * before any can commit (see `race`), so only the check inside the commit transaction decides. Each race
 * runs RUNS times; the winners are printed for the record.
 */
const WRITERS = 20;
const RUNS = 5;
const MAX = 200_000;
const { factory, spied } = spyingAdapters();
const test = serverTest({ adapters: factory, settings: { maxFileBytes: MAX } });

type Kind = 'content' | 'metadata' | 'delete';

/** Writer `i`'s content: small (inline on the default sets) or above the 64 KiB inline threshold. */
const contentOf = (run: number, i: number) =>
  Buffer.from(`# run ${run} writer ${i}\n${i % 3 === 0 ? 'x'.repeat(70_000) : ''}\n`);
const metadataOf = (run: number, i: number) => ({ run, writer: i });

function request(
  kind: Kind,
  o: { key: string; path: string; etag: string; run: number; i: number },
): RaceRequest {
  const headers = { authorization: `Bearer ${o.key}`, 'if-match': o.etag };
  if (kind === 'content') {
    return {
      method: 'PUT',
      path: `${o.path}/content`,
      headers: { ...headers, 'content-type': 'text/markdown' },
      body: contentOf(o.run, o.i),
    };
  }
  if (kind === 'metadata') {
    return {
      method: 'PUT',
      path: o.path,
      headers: { ...headers, 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ metadata: metadataOf(o.run, o.i) })),
    };
  }
  return { method: 'DELETE', path: o.path, headers };
}

const summary: Record<string, string[]> = {};

/** Notes the winner of a run; once every run is in, prints the line for the record. */
function noteWinner(kind: string, winner: number, kinds: readonly Kind[]): void {
  const line = summary[kind] ?? [];
  summary[kind] = line;
  line.push(`#${winner}${kinds.length > 1 ? `(${kinds[winner]})` : ''}`);
  if (line.length === RUNS) {
    console.log(
      `[if-match race] ${selectedAdapterName()} ${kind}: ${RUNS} runs × ${WRITERS} writers, winners ${line.join(' ')}`,
    );
  }
}

function expectLosers(answers: RaceAnswer[], winner: number, o: { etag: string | null }): void {
  for (const [index, answer] of answers.entries()) {
    if (index === winner) continue;
    if (o.etag === null) {
      // The file is gone: a precondition on a missing file is ignored (404).
      expect(answer.status, `writer ${index}`).toBe(404);
      expect(JSON.parse(answer.body)).toEqual({ detail: 'File not found' });
    } else {
      expect(answer.status, `writer ${index}: ${answer.body}`).toBe(412);
      expect(answer.headers.etag, `writer ${index}`).toBe(o.etag);
      expect(JSON.parse(answer.body)).toEqual({ detail: 'Precondition failed' });
    }
  }
}

async function runRaces(h: HttpHarness, name: string, kinds: (i: number) => Kind): Promise<void> {
  const { apiKey } = await h.account();
  const { id: projectId } = await h.createProject(apiKey, 'Race');
  const writerKinds = Array.from({ length: WRITERS }, (_, i) => kinds(i));
  for (let run = 1; run <= RUNS; run++) {
    const filename = `race-${run}.md`;
    const original = Buffer.from(`# original ${run}\n`);
    const uploaded = (await h.uploadFile(apiKey, projectId, filename, original, {
      original: run,
    })) as unknown as FileAnswer;
    const path = `/api/projects/${projectId}/files/${filename}`;
    const writesBefore = spied.inline.size + spied.blobs.size;
    const { answers, continued } = await race(
      h.url,
      writerKinds.map((kind, i) => request(kind, { key: apiKey, path, etag: uploaded.etag, run, i })),
    );
    // Every writer with a body got past the first If-Match check: only the commit could refuse it.
    expect(continued).toBe(writerKinds.filter((kind) => kind !== 'delete').length);
    const winner = soleWinner(answers);
    const kind = writerKinds[winner]!;
    noteWinner(name, winner, [...new Set(writerKinds)].length > 1 ? writerKinds : [kind]);

    const download = await h.fetch(path, { key: apiKey });
    if (kind === 'delete') {
      expect(answers[winner]!.status).toBe(204);
      expect(download.status).toBe(404);
      await download.arrayBuffer();
      expectLosers(answers, winner, { etag: null });
    } else {
      const won = JSON.parse(answers[winner]!.body) as FileAnswer;
      expect(won.revision).toBe(2);
      expect(answers[winner]!.headers.etag).toBe(won.etag);
      expect(download.headers.get('etag')).toBe(won.etag);
      const bytes = Buffer.from(await download.arrayBuffer());
      const expectedContent = kind === 'content' ? contentOf(run, winner) : original;
      expect(bytes.equals(expectedContent)).toBe(true);
      expect(won.sha256).toBe(sha256Hex(expectedContent));
      expect(won.metadata).toEqual(kind === 'metadata' ? metadataOf(run, winner) : { original: run });
      expectLosers(answers, winner, { etag: won.etag });
      const stored = (await h.adapters.records.findFile({ projectId, filename }))!;
      expect(
        (await h.adapters.records.listRevisionContents({ fileId: stored.id })).map((r) => r.revision),
      ).toEqual([2, 1]);
    }
    // The losers' contents were really stored (then removed again): the check below had work to do.
    const contentWriters = writerKinds.filter((k) => k === 'content').length;
    expect(spied.inline.size + spied.blobs.size - writesBefore).toBe(contentWriters);
    await expectNothingLeftBehind(h, spied, projectId);
  }
}

describe(`${WRITERS} concurrent writers carrying one ETag, ${RUNS} runs each`, () => {
  test('content updates: exactly one 200, the others 412; the winner’s content is stored, nothing else', async (h) => {
    await runRaces(h, 'content', () => 'content');
  });

  test('metadata updates: exactly one 200, the others 412; the winner’s metadata is stored', async (h) => {
    await runRaces(h, 'metadata', () => 'metadata');
  });

  test('deletes: exactly one 204, the others find no file (404)', async (h) => {
    await runRaces(h, 'delete', () => 'delete');
  });

  test('content, metadata and deletes mixed: exactly one wins; the others 412, or 404 after a delete', async (h) => {
    const kinds: Kind[] = ['content', 'metadata', 'delete'];
    await runRaces(h, 'mixed', (i) => kinds[i % 3]!);
  });

  test('project updates: exactly one 200, the others 412 with the winner’s project ETag', async (h) => {
    const { apiKey } = await h.account();
    const winners: string[] = [];
    for (let run = 1; run <= RUNS; run++) {
      const { id } = await h.createProject(apiKey, `Race ${run}`);
      const current = await h.fetch(`/api/projects/${id}`, { key: apiKey });
      const etag = current.headers.get('etag')!;
      await current.arrayBuffer();
      // Half change the description, half send an update that changes nothing but updated_date.
      const { answers, continued } = await race(
        h.url,
        Array.from({ length: WRITERS }, (_, i) => ({
          method: 'PUT',
          path: `/api/projects/${id}`,
          headers: {
            authorization: `Bearer ${apiKey}`,
            'if-match': etag,
            'content-type': 'application/json',
          },
          body: Buffer.from(JSON.stringify(i % 2 === 0 ? { description: `writer ${i}` } : { settings: {} })),
        })),
      );
      expect(continued).toBe(WRITERS);
      const winner = soleWinner(answers);
      winners.push(`#${winner}`);
      const won = JSON.parse(answers[winner]!.body) as { etag: string; description: string | null };
      expect(won.description).toBe(winner % 2 === 0 ? `writer ${winner}` : null);
      for (const [index, answer] of answers.entries()) {
        if (index === winner) continue;
        expect(answer.status, `writer ${index}`).toBe(412);
        expect(answer.headers.etag).toBe(won.etag);
      }
      const after = await h.fetch(`/api/projects/${id}`, { key: apiKey });
      expect(after.headers.get('etag')).toBe(won.etag);
      await after.arrayBuffer();
    }
    console.log(
      `[if-match race] ${selectedAdapterName()} project: ${RUNS} runs × ${WRITERS} writers, winners ${winners.join(' ')}`,
    );
  });
});
