import { afterAll, expect } from 'vitest';
import { currentAccount } from '../../src/content-work/owner.js';
import { PiscinaContentWork } from '../../src/content-work/pool.js';
import { jsonParserOf } from '../../src/http/json-parser.js';
import { memoryAdapters } from '../support/adapters.js';
import { serverTest } from '../support/http-harness.js';

/**
 * The content work pool's share per account (issue 34, "fair share") needs the account of every task
 * a request sends there: the `/api` routes and `/mcp` set it once the key is authenticated. A JSON body
 * above the inline bound is parsed in the pool, so an invalid one (answered 400 at once) shows which
 * account each task was counted for.
 */

const accounts: Array<string | undefined> = [];
const pool = new PiscinaContentWork(
  { threads: 1, deadlineMs: 60_000, memoryMb: 256, queue: 8 },
  (error) => {
    throw error;
  },
  () => {
    const account = currentAccount();
    accounts.push(account);
    return account;
  },
);
afterAll(() => pool.close());

const test = serverTest({
  adapters: memoryAdapters,
  settings: { maxFileBytes: 2 * 1024 * 1024 },
  contentWork: pool,
  app: { jsonParser: jsonParserOf(pool) },
});

/** Not JSON, and above the inline bound: parsed in the pool, then refused. */
const INVALID = `{"operations": [${'"x", '.repeat(300_000)}`;

test('the pool counts the tasks of /api and /mcp requests against the key’s account', async (h) => {
  const { apiKey, accountId, defaultProjectId } = await h.account();
  const other = await h.account();
  const changeset = await h.fetch(`/api/projects/${defaultProjectId}/changesets`, {
    method: 'POST',
    key: apiKey,
    headers: { 'content-type': 'application/json' },
    body: INVALID,
  });
  expect(changeset.status).toBe(400);
  const mcp = await h.fetch('/mcp', {
    method: 'POST',
    key: other.apiKey,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: INVALID,
  });
  expect(mcp.status).toBe(400);
  expect(accounts).toEqual([accountId, other.accountId]);
});
