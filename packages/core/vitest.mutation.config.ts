import path from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * The test set of the mutation run (`npm run test:mutation`, see docs/testing.md): the core's own fast
 * tests only, on the in-memory adapters. No Postgres, SQLite, S3 or HTTP suite runs for a mutant, so
 * each mutant costs milliseconds. The dependency-rule test reads package manifests, not behaviour, so
 * it is left out too.
 */
/**
 * One copy of the core: Stryker's sandbox holds a copy of this package, and the other workspace packages
 * (the memory adapters) would otherwise reach the original one through the linked `node_modules`, so
 * their calls into the core would run unmutated code. The aliases send every import to the sandbox's.
 */
const alias = [
  { find: /^@mdstore\/core$/, replacement: path.join(import.meta.dirname, 'src/index.ts') },
  { find: /^@mdstore\/core\/testing$/, replacement: path.join(import.meta.dirname, 'src/testing/index.ts') },
];

export default defineConfig({
  resolve: { conditions: ['mdstore-source'], alias },
  ssr: { resolve: { conditions: ['mdstore-source'] } },
  test: {
    name: 'core-mutation',
    root: import.meta.dirname,
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    exclude: [
      'test/dependency-rule.test.ts',
      'test/markdown/corpus.test.ts',
      'test/markdown/commonmark-spec.test.ts',
    ],
    setupFiles: ['mutation/setup.ts'],
    // Fewer runs per property than `npm test` (1000/200): each mutant reruns the properties that cover it.
    env: { MDSTORE_PBT_RUNS: '60' },
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
