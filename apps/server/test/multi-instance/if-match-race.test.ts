import { createHash } from 'node:crypto';
import { type RunningS3rver, startS3rver } from '@mdstore/s3/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresS3Inspector, type StoreInspector } from '../crash/support/store-inspection.js';
import { dropSchema, freshSchemaName, skipWithoutPostgres, TEST_POSTGRES_URL } from '../support/adapters.js';
import { type RaceAnswer, type RaceRequest, race, soleWinner } from '../support/race.js';
import {
  type CliAccount,
  cleanUp,
  createAccount,
  type Instance,
  killAllInstances,
  sharedEnvironment,
  startInstance,
  uploadRequest,
} from './support.js';

/**
 * If-Match across two server processes on one Postgres schema and one S3 endpoint: of 20 writers carrying
 * one ETag, sent alternately to either instance and all past their first check before any can commit,
 * exactly one wins; the project lock and the check inside the commit are shared, not per process.
 * Each race runs RUNS times; the winners and the instance that served them are printed.
 */
const WRITERS = 20;
const RUNS = 5;
const skip = await skipWithoutPostgres('multi-instance If-Match race');

type Kind = 'content' | 'metadata' | 'delete';

const contentOf = (kind: string, run: number, i: number) =>
  Buffer.from(`# ${kind} run ${run} writer ${i}\n${i % 3 === 0 ? 'x'.repeat(70_000) : ''}\n`);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe.skipIf(skip)('If-Match across two instances on one Postgres schema', () => {
  const schema = freshSchemaName();
  let s3: RunningS3rver;
  let cleanup: (() => Promise<void>) | undefined;
  let inspector: StoreInspector;
  let instances: Instance[] = [];
  let account: CliAccount;

  beforeAll(async () => {
    s3 = await startS3rver();
    const shared = await sharedEnvironment({
      schema,
      s3,
      // Every writer of a race must be in flight at once: above the account's share of running requests
      // (4 by default, tested in http/account-share.test.ts), which would let them in a few at a time.
      extra: { MDSTORE_RATE_LIMIT_STANDARD: '1000000000', MDSTORE_MAX_REQUESTS_PER_ACCOUNT: '100' },
    });
    cleanup = shared.cleanup;
    instances = await Promise.all([startInstance(shared.env), startInstance(shared.env)]);
    account = await createAccount('race', shared.env);
    inspector = postgresS3Inspector({ databaseUrl: TEST_POSTGRES_URL, schema, s3: s3.s3ClientOptions });
  });

  afterAll(() =>
    cleanUp([
      () => Promise.allSettled(instances.map((instance) => instance.stop())),
      killAllInstances,
      () => inspector?.close(),
      () => s3?.stop(),
      () => dropSchema(schema),
      () => cleanup?.(),
    ]),
  );

  /** Nothing of the losers kept: no intent, no unreferenced blob or inline content, counters right. */
  async function expectConsistent(projectId: string): Promise<void> {
    const store = await inspector.snapshot();
    expect(store.intents).toEqual([]);
    const project = store.projects.find((p) => p.id === projectId)!;
    const files = store.files.filter((file) => file.projectId === projectId);
    const revisions = store.revisions.filter((revision) => revision.projectId === projectId);
    expect(project.fileCount).toBe(files.length);
    expect(project.totalSizeBytes).toBe(files.reduce((sum, file) => sum + file.sizeBytes, 0));
    const blobKeys = revisions.filter((r) => !r.inline).map((r) => r.contentKey);
    const inlineKeys = revisions.filter((r) => r.inline).map((r) => r.contentKey);
    expect([...(store.buckets.get(project.bucket)?.keys() ?? [])].sort()).toEqual(
      [...new Set(blobKeys)].sort(),
    );
    expect([...(store.inlineContents.get(projectId)?.keys() ?? [])].sort()).toEqual(
      [...new Set(inlineKeys)].sort(),
    );
  }

  async function runRaces(name: string, kinds: (i: number) => Kind): Promise<string[]> {
    const { apiKey, defaultProjectId: projectId } = account;
    const winners: string[] = [];
    for (let run = 1; run <= RUNS; run++) {
      const filename = `${name}-${run}.md`;
      const original = `# original ${run}\n`;
      const uploaded = await instances[run % 2]!.fetch(
        `/api/projects/${projectId}/files`,
        uploadRequest(apiKey, filename, original),
      );
      expect(uploaded.status).toBe(201);
      const { etag } = (await uploaded.json()) as { etag: string };
      const path = `/api/projects/${projectId}/files/${filename}`;
      const writerKinds = Array.from({ length: WRITERS }, (_, i) => kinds(i));
      const requests: RaceRequest[] = writerKinds.map((kind, i) => {
        const headers = { authorization: `Bearer ${apiKey}`, 'if-match': etag };
        const baseUrl = instances[i % 2]!.url;
        if (kind === 'content') {
          const body = contentOf(name, run, i);
          return {
            baseUrl,
            method: 'PUT',
            path: `${path}/content`,
            headers: { ...headers, 'content-type': 'text/markdown' },
            body,
          };
        }
        if (kind === 'metadata') {
          const body = Buffer.from(JSON.stringify({ metadata: { run, writer: i } }));
          return {
            baseUrl,
            method: 'PUT',
            path,
            headers: { ...headers, 'content-type': 'application/json' },
            body,
          };
        }
        return { baseUrl, method: 'DELETE', path, headers };
      });
      const { answers, continued } = await race(instances[0]!.url, requests);
      expect(continued).toBe(writerKinds.filter((kind) => kind !== 'delete').length);
      const winner = soleWinner(answers);
      const kind = writerKinds[winner]!;
      winners.push(`#${winner}${name === 'mixed' ? `(${kind})` : ''}@${winner % 2 === 0 ? 'A' : 'B'}`);
      await expectOutcome({ answers, winner, kind, path, run, name, original });
      await expectConsistent(projectId);
    }
    return winners;
  }

  async function expectOutcome(o: {
    answers: RaceAnswer[];
    winner: number;
    kind: Kind;
    path: string;
    run: number;
    name: string;
    original: string;
  }): Promise<void> {
    const won = o.answers[o.winner]!;
    const finalEtag = o.kind === 'delete' ? null : (JSON.parse(won.body) as { etag: string }).etag;
    for (const [index, answer] of o.answers.entries()) {
      if (index === o.winner) continue;
      expect(answer.status, `writer ${index}`).toBe(finalEtag === null ? 404 : 412);
      if (finalEtag !== null) expect(answer.headers.etag).toBe(finalEtag);
    }
    // Both instances serve the winner's state.
    for (const instance of instances) {
      const download = await instance.fetch(o.path, { key: account.apiKey });
      if (o.kind === 'delete') {
        expect(download.status).toBe(404);
        await download.arrayBuffer();
        continue;
      }
      expect(download.headers.get('etag')).toBe(finalEtag);
      const bytes = Buffer.from(await download.arrayBuffer());
      const expected = o.kind === 'content' ? contentOf(o.name, o.run, o.winner) : Buffer.from(o.original);
      expect(sha256(bytes)).toBe(sha256(expected));
    }
  }

  it('content updates: exactly one 200, the others 412', async () => {
    console.log(
      `[if-match race] two instances content: ${RUNS} runs × ${WRITERS} writers, winners ${(await runRaces('content', () => 'content')).join(' ')}`,
    );
  });

  it('metadata updates: exactly one 200, the others 412', async () => {
    console.log(
      `[if-match race] two instances metadata: ${RUNS} runs × ${WRITERS} writers, winners ${(await runRaces('metadata', () => 'metadata')).join(' ')}`,
    );
  });

  it('deletes: exactly one 204, the others 404', async () => {
    console.log(
      `[if-match race] two instances delete: ${RUNS} runs × ${WRITERS} writers, winners ${(await runRaces('delete', () => 'delete')).join(' ')}`,
    );
  });

  it('content, metadata and deletes mixed: exactly one wins', async () => {
    const kinds: Kind[] = ['content', 'metadata', 'delete'];
    console.log(
      `[if-match race] two instances mixed: ${RUNS} runs × ${WRITERS} writers, winners ${(await runRaces('mixed', (i) => kinds[i % 3]!)).join(' ')}`,
    );
  });
});
