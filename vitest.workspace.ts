import { defineProject } from 'vitest/config';

/**
 * The test projects. Vitest 4 no longer reads this file on its own: `vitest.config.ts` imports the list
 * into `test.projects`. Each project resolves `@mdstore/*` packages to their TypeScript sources through
 * the `mdstore-source` export condition, so tests never need a build.
 */
const project = (name: string, root: string, extra: { testTimeout?: number } = {}) =>
  defineProject({
    resolve: { conditions: ['mdstore-source'] },
    ssr: { resolve: { conditions: ['mdstore-source'] } },
    test: {
      name,
      root,
      include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
      environment: 'node',
      testTimeout: extra.testTimeout ?? 30_000,
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
  project('sqlite', 'packages/sqlite'),
  project('postgres', 'packages/postgres'),
  project('fs', 'packages/fs'),
  project('s3', 'packages/s3'),
  project('server', 'apps/server', { testTimeout: 60_000 }),
  project('console', 'apps/console'),
  project('client', 'packages/client'),
  project('cli', 'packages/cli', { testTimeout: 60_000 }),
  project('examples', 'examples', { testTimeout: 120_000 }),
];
