import type { Reporter, TestModule } from 'vitest/node';
import { FULL_RUN_ONLY } from '../vitest.workspace.ts';

/** Prints the closing line CI reads: `N passed, N failed` (and skipped), alone on its line. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++;
    }
    // The slowest files, by their own wall time (in a loaded run with several workers): what to look at
    // first when the run's time budget (docs/testing.md, "Time") is at risk.
    const slowest = testModules
      .map((module) => ({
        id: `${module.project.name}/${module.relativeModuleId}`,
        ms: module.diagnostic().duration,
      }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 15);
    process.stdout.write('\nSlowest test files (wall time in their worker):\n');
    for (const { id, ms } of slowest)
      process.stdout.write(`  ${(ms / 1000).toFixed(1).padStart(7)} s  ${id}\n`);
    if (process.env.MDSTORE_TEST_FULL !== '1') {
      const left = Object.values(FULL_RUN_ONLY).flat();
      process.stdout.write(`\nLeft to \`npm run test:full\` (docs/testing.md): ${left.join(', ')}\n`);
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
