import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { postgresS3Adapters, skipWithoutPostgres } from '../support/adapters.js';
import { HttpHarness, type TestAccount } from '../support/http-harness.js';

/**
 * Round trips to Postgres per hot request (issue 23, deliverable 4), counted as the messages the pool's
 * clients send (`pg.Client#query`: one per statement, or per batch of statements sent together). The
 * bounds are the counts after the change; docs/performance.md ("Postgres round trips") has them beside
 * the counts before it.
 */
const skip = await skipWithoutPostgres('postgres round trips');

describe.skipIf(skip)('Postgres round trips per hot request', () => {
  let h: HttpHarness;
  let account: TestAccount;
  const content = `# Notes\n\n${'word '.repeat(800)}\n`; // 4 KiB: inline

  beforeAll(async () => {
    h = await HttpHarness.start({ adapters: postgresS3Adapters, settings: { maxFileBytes: 1 << 20 } });
    account = await h.account();
    await h.uploadFile(account.apiKey, account.defaultProjectId, 'seed.md', content);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await h?.close();
  });

  /** The statements sent while `request` runs, and its answer's status. */
  async function roundTrips(request: () => Promise<Response>): Promise<{ status: number; count: number }> {
    const spy = vi.spyOn(pg.Client.prototype, 'query');
    try {
      const response = await request();
      await response.arrayBuffer();
      const count = spy.mock.calls.length;
      return { status: response.status, count };
    } finally {
      spy.mockRestore();
    }
  }

  it('GET project: the key with its account, then the project (2, was 3)', async () => {
    const { status, count } = await roundTrips(() =>
      h.fetch(`/api/projects/${account.defaultProjectId}`, { key: account.apiKey }),
    );
    expect(status).toBe(200);
    expect(count).toBeLessThanOrEqual(2);
  });

  it('download of an inline 4 KiB file: the key with its account, the project, the file, its bytes (4, was 5)', async () => {
    const { status, count } = await roundTrips(() =>
      h.fetch(`/api/projects/${account.defaultProjectId}/files/seed.md`, { key: account.apiKey }),
    );
    expect(status).toBe(200);
    expect(count).toBeLessThanOrEqual(4);
  });

  let n = 0;
  it('upload of an inline 4 KiB file: the reads before the body, then the commit transaction (5, was 12)', async () => {
    const { status, count } = await roundTrips(() =>
      h.upload(account.apiKey, account.defaultProjectId, [
        { name: 'file', filename: `new-${n++}.md`, data: content },
      ]),
    );
    expect(status).toBe(201);
    // 3 reads before the body (key with account, project, file), then the commit transaction in 2: BEGIN with
    // the inline content's insert and the project's lock, then the file, its index, its revision, the
    // project's counters and the COMMIT. Before: 12 (the transaction alone was 8).
    expect(count).toBeLessThanOrEqual(5);
  });
});
