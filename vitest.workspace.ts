import { defineProject } from 'vitest/config';

/**
 * The test projects. Vitest 4 no longer reads this file on its own: `vitest.config.ts` imports the list
 * into `test.projects`. Each project resolves `@mdstore/*` packages to their TypeScript sources through
 * the `mdstore-source` export condition, so tests never need a build.
 */
/**
 * Test files that `npm test` (and so CI) leaves to `npm run test:full`, a mode run by hand before a
 * release or when touching what they prove: what they add is slow and mostly proven elsewhere too
 * (docs/testing.md, "Time", says what each one covers and what covers it in the quick run).
 */
export const FULL_RUN_ONLY: Readonly<Record<string, readonly string[]>> = {
  // The HTTP suites with every content in the blob store (both pairs): in the quick run the sqlite-fs
  // and postgres-s3 sets send their large contents there, the blob stores have their contract suites,
  // the crash and fault suites write both forms, and the parity test runs on the -blobs sets.
  server: ['test/matrix/postgres-s3-blobs.*.test.ts', 'test/matrix/sqlite-fs-blobs.*.test.ts'],
  // Packs every package, installs the tarballs outside the workspace and type-checks there (5 minutes
  // of CPU): the packages' manifests and exports change rarely.
  examples: ['test/packaging.test.ts'],
};

const full = process.env.MDSTORE_TEST_FULL === '1';

/**
 * Whether a project's test files each get a fresh module graph. The package projects share one per worker
 * (`isolate: false`): their files import the same modules (the core, markdown-it, the drivers) and
 * keep no state between files that another file reads (counters are compared before and after, mocks are
 * restored, every store is their own). That took the core project from 187 s to 66 s on 2 cores (its
 * 118 files had spent 344 s of worker time importing). Isolated: the projects whose files replace a module
 * (`vi.mock` of `node:fs` in fs and sqlite: a shared graph keeps the first file's copy), and the server
 * and the examples, whose support modules register hooks and keep per-file state
 * (`test/support/adapters.ts`). A new `vi.mock` in a shared project needs `isolate: true` there.
 */
const project = (name: string, root: string, extra: { testTimeout?: number; isolate?: boolean } = {}) =>
  defineProject({
    resolve: { conditions: ['mdstore-source'] },
    ssr: { resolve: { conditions: ['mdstore-source'] } },
    test: {
      name,
      root,
      include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
      exclude: ['**/node_modules/**', ...(full ? [] : (FULL_RUN_ONLY[name] ?? []))],
      environment: 'node',
      testTimeout: extra.testTimeout ?? 30_000,
      isolate: extra.isolate ?? false,
      hookTimeout: 60_000,
      env: {
        // The AWS SDK's documented switch (aws/aws-sdk-js-v3#7983) for its multi-line notice that its
        // releases after January 2027 need Node.js 22: printed once per test worker that loads it, it
        // buried the test output. Node's other warnings still print.
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
    },
  });

export default [
  project('core', 'packages/core'),
  project('sql', 'packages/sql'),
  project('memory', 'packages/memory'),
  project('sqlite', 'packages/sqlite', { isolate: true }),
  project('postgres', 'packages/postgres'),
  project('fs', 'packages/fs', { isolate: true }),
  project('s3', 'packages/s3'),
  project('server', 'apps/server', { testTimeout: 60_000, isolate: true }),
  project('console', 'apps/console'),
  project('client', 'packages/client'),
  project('cli', 'packages/cli', { testTimeout: 60_000 }),
  project('examples', 'examples', { testTimeout: 120_000, isolate: true }),
  // The bench's own checks (its evaluation sets), not the benchmarks: those are `npm run bench`.
  project('bench', 'bench'),
];
