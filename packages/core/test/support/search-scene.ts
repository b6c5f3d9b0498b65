import {
  type BlobStore,
  type InputError,
  isMdStoreError,
  type MdStore,
  type RecordsRepository,
  type SearchAnswer,
  type ValidationIssue,
  wireBody,
} from '@mdstore/core';
import { expect } from 'vitest';
import { anAccount, createFixture, textStream } from './fixture.js';

/**
 * A store on the memory adapters for the core tests of search (extensions §3) through
 * `store.files.search`: uploads, a project's or the account's search, the failure of a call and its
 * one issue, and a walk through every page.
 */

export const KEY = new Uint8Array(32).fill(7);

export type Body = Record<string, unknown>;
export const ACCOUNT = null;

export async function scene(
  options: {
    settings?: { inlineMaxBytes: number };
    wrapRecords?: (inner: RecordsRepository) => RecordsRepository;
    wrapBlobs?: (inner: BlobStore) => BlobStore;
  } = {},
) {
  const fixture = createFixture();
  const store: MdStore = fixture.restart({
    cursorKey: KEY,
    settings: options.settings,
    ...(options.wrapRecords && { records: options.wrapRecords(fixture.records) }),
    ...(options.wrapBlobs && { blobs: options.wrapBlobs(fixture.blobs) }),
  });
  const alice = await anAccount(store, 'alice');
  const at = { principal: alice.principal, projectId: alice.defaultProjectId };
  const put = (filename: string, text: string, metadata?: unknown, where = at) =>
    store.files.upload({
      ...where,
      filename,
      content: textStream(text),
      ...(metadata !== undefined && { metadata: JSON.stringify(metadata) }),
    });
  /** A project's search, or with `ACCOUNT` the account's (`/api/search`). */
  const search = (body: unknown, projectId: string | null = at.projectId, who = alice) =>
    store.files.search({
      principal: who.principal,
      ...(projectId !== null && { projectId }),
      body: wireBody(body),
    });
  const names = async (body: unknown, projectId: string | null = at.projectId) =>
    filenames(await search(body, projectId));
  return { ...fixture, store, alice, at, put, search, names };
}

export const filenames = (answer: SearchAnswer) => answer.results.map((result) => result.file.filename);

/** The code and issues of a failing call. */
export async function failure(
  run: () => Promise<unknown>,
): Promise<{ code: string; issues: readonly ValidationIssue[] }> {
  try {
    await run();
  } catch (error) {
    if (!isMdStoreError(error)) throw error;
    return { code: error.code, issues: (error as Partial<InputError>).issues ?? [] };
  }
  throw new Error('expected the call to fail');
}

/** The one 422 issue of a failing call, as `[loc, type, msg]`. */
export async function issueOf(
  run: () => Promise<unknown>,
): Promise<[readonly (string | number)[], string, string]> {
  const { code, issues } = await failure(run);
  expect(code).toBe('INVALID_INPUT');
  expect(issues).toHaveLength(1);
  return [issues[0]!.loc, issues[0]!.type, issues[0]!.msg];
}

/** Every page of a walk with `limit`, following `next_cursor`. */
export async function walk(
  search: (body: unknown) => Promise<SearchAnswer>,
  body: Body,
): Promise<{ pages: string[][]; totals: number[] }> {
  const pages: string[][] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  do {
    const answer: SearchAnswer = await search({ ...body, ...(cursor !== null && { cursor }) });
    pages.push(filenames(answer));
    totals.push(answer.totalCount);
    cursor = answer.nextCursor;
    if (pages.length > 50) throw new Error('the walk does not end');
  } while (cursor !== null);
  return { pages, totals };
}
