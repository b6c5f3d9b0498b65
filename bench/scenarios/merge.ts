// Issue 38 (extensions §13): the three-way merge engine alone (`mergeDocument`, in process): two texts
// of about 1 MiB (14 500 lines of prose), each with 100 changes that do not overlap the other's, merged
// with their base; the p50/p90 of `runs` merges after a warm-up (target p50 < 50 ms). The merge runs on
// the request path of `?merge_base=` and of a draft's publish, so its time is a request's time.
import { mergeDocument } from '@mdstore/core';
import { nearestRank } from '../lib/load.js';
import type { Scenario } from './types.js';

const TARGET_MS = 50;
const LINES = 14_500;
const CHANGES = 100;

function texts() {
  const line = (i: number) =>
    `Line ${i} of a long paragraph of prose, with words that repeat ${i % 7} times.\n`;
  const base = Array.from({ length: LINES }, (_, i) => line(i));
  const current = base.slice();
  const proposed = base.slice();
  const step = Math.floor(LINES / CHANGES);
  for (let k = 0; k < CHANGES; k++) {
    current[k * step] = `Changed on the current side (${k}).\n`;
    proposed[k * step + Math.floor(step / 2)] = `Changed on the proposed side (${k}).\n`;
  }
  return { base: base.join(''), current: current.join(''), proposed: proposed.join('') };
}

export const mergeScenario: Scenario = {
  name: 'merge',
  description: `three-way merge of two ~1 MiB texts with ${CHANGES} non-overlapping changes each (target p50 < ${TARGET_MS} ms)`,
  needs: [],
  async run(bench) {
    const { base, current, proposed } = texts();
    const runs = bench.settings.quick ? 10 : 50;
    const times: number[] = [];
    for (let i = -3; i < runs; i++) {
      const started = performance.now();
      const result = mergeDocument(base, current, proposed);
      const elapsed = performance.now() - started;
      if (result.kind !== 'clean' || !result.merged) throw new Error('the merge did not come out clean');
      if (i >= 0) times.push(elapsed);
      await new Promise((resolve) => setImmediate(resolve));
    }
    times.sort((x, y) => x - y);
    const what = `merge: two ${(base.length / 2 ** 20).toFixed(2)} MiB texts, ${CHANGES} changes each`;
    bench.results.lower(what, 'p50 ms', nearestRank(times, 50), TARGET_MS, `target ${TARGET_MS} ms`);
    bench.results.lower(what, 'p90 ms', nearestRank(times, 90), TARGET_MS, 'p50 target, for scale');
  },
};
