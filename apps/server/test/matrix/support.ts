import { afterAll, beforeAll, describe } from 'vitest';
import { skipWithoutPostgres, useAdapterSet } from '../support/adapters.js';

/**
 * The HTTP suites, loaded as modules: importing one inside a `describe` declares its tests there, so the
 * very same files that run on their own (on `MDSTORE_HTTP_TEST_ADAPTERS`, default memory) run here again
 * on another adapter set, unchanged.
 */
const HTTP_SUITES = [
  'auth',
  'projects',
  'files',
  // extensions §12
  'attachments',
  'attachment-move',
  'attachment-trash',
  'robustness',
  'transport',
  // extensions §2
  'conditional',
  'settings',
  'ranges-digests',
  'expect-continue',
  'if-match-race',
  // extensions §4
  'editing',
  'parts',
  'mcp',
  // extensions §1 and §3
  'lists',
  'search',
  // extensions §15
  'search-meaning',
  // extensions §5
  'history',
  'trash',
  // issue 22: hostile input at the edge
  'edge',
  // extensions §10
  'export',
  'import',
  // extensions §10 and §12: whole vaults
  'vault',
  // extensions §8
  'access',
  // extensions §7
  'changes',
  'webhooks',
  // extensions §14
  'memory',
  'folder-keys',
  // extensions §9
  'changesets',
  'links',
  // extensions §11
  'render',
  'shares',
  // extensions §13
  'drafts',
  // extensions §16
  'restore',
];

/**
 * Suites whose rules do not touch where content is kept (keys, roles, the change feed, webhooks): on a
 * `-blobs` set (every content in the blob store) they would only repeat the plain set's run.
 */
const CONTENT_FORM_BLIND = new Set(['auth', 'access', 'folder-keys', 'changes', 'webhooks']);

/**
 * A fresh instance of a suite module for each adapter set: the query string makes Vite load the file
 * as another module, so the same suites can be declared twice in one matrix file.
 */
const loadSuite = (name: string, set: string) =>
  import(/* @vite-ignore */ `../http/${name}.test.ts?set=${set}`);

/**
 * Declares the HTTP suites on the adapter set `name` (see `ADAPTER_SETS`): all of them, or with `part`
 * (`[k, n]`, k from 1) every n-th from the k-th, so one set can be spread over n test files that the
 * runner's workers take side by side (one file runs in one worker, its suites one after the other). A
 * set on Postgres is skipped, with the reason printed, when Postgres is unreachable outside CI.
 */
export async function defineHttpSuitesOn(
  name: string,
  o: { postgres: boolean; part?: readonly [number, number] },
): Promise<void> {
  const [k, n] = o.part ?? [1, 1];
  const title = n === 1 ? `HTTP suites on ${name}` : `HTTP suites on ${name} (part ${k} of ${n})`;
  const skip = o.postgres && (await skipWithoutPostgres(title));
  describe.skipIf(skip)(title, async () => {
    beforeAll(() => useAdapterSet(name));
    afterAll(() => useAdapterSet(undefined));
    for (const [index, suite] of HTTP_SUITES.entries()) {
      if (index % n !== k - 1) continue;
      if (name.endsWith('-blobs') && CONTENT_FORM_BLIND.has(suite)) continue;
      await loadSuite(suite, name);
    }
  });
}
