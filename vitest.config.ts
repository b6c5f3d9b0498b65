import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import projects from './vitest.workspace.ts';

/**
 * Test files run side by side in this many workers (`MDSTORE_TEST_WORKERS` overrides). Vitest's own
 * default is one less than the cores, which on CI's 2 cores is ONE worker: every file in turn, while
 * most of them wait on Postgres, S3, sockets and fsync rather than compute. Two per core (at most 8)
 * keeps both cores busy through those waits; docs/testing.md has the measured wall times.
 */
const workers = Number(process.env.MDSTORE_TEST_WORKERS) || Math.min(8, 2 * availableParallelism());

export default defineConfig({
  test: {
    projects,
    maxWorkers: workers,
    reporters: ['default', './scripts/summary-reporter.ts'],
  },
});
