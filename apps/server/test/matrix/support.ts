import { afterAll, beforeAll, describe } from 'vitest';
import { skipWithoutPostgres, useAdapterSet } from '../support/adapters.js';

/**
 * The HTTP suites, loaded as modules: importing one inside a `describe` declares its tests there, so the
 * very same files that run on their own (on `MDSTORE_HTTP_TEST_ADAPTERS`, default memory) run here again
 * on another adapter set, unchanged.
 */
const HTTP_SUITES = [
  () => import('../http/auth.test.js'),
  () => import('../http/projects.test.js'),
  () => import('../http/files.test.js'),
  () => import('../http/robustness.test.js'),
  () => import('../http/transport.test.js'),
];

/**
 * Declares every HTTP suite on the adapter set `name` (see `ADAPTER_SETS`). A set on Postgres is skipped,
 * with the reason printed, when Postgres is unreachable outside CI.
 */
export async function defineHttpSuitesOn(name: string, o: { postgres: boolean }): Promise<void> {
  const title = `HTTP suites on ${name}`;
  const skip = o.postgres && (await skipWithoutPostgres(title));
  describe.skipIf(skip)(title, async () => {
    beforeAll(() => useAdapterSet(name));
    afterAll(() => useAdapterSet(undefined));
    for (const load of HTTP_SUITES) await load();
  });
}
