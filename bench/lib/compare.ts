import type { Options as AutocannonOptions } from 'autocannon';
import type { Bench } from './context.js';
import { type Measurement, runAutocannon, runLoop } from './load.js';

/** Something to measure for a given time: mdstore or one of its baselines. */
export interface Target {
  /** Targets with the same key share one warm-up per run (e.g. one server). */
  readonly warmUpKey: string;
  run(durationSec: number): Promise<Measurement>;
}

/** An autocannon run against an HTTP server. */
export function autocannonTarget(warmUpKey: string, options: AutocannonOptions & { title: string }): Target {
  return { warmUpKey, run: (durationSec) => runAutocannon({ ...options, duration: durationSec }) };
}

/** A closed loop of `task` with `concurrency` workers (baselines without HTTP, latency loops). */
export function loopTarget(
  warmUpKey: string,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Target {
  let next = 0;
  // Indices stay unique across rounds and warm-up, so tasks may use them in names.
  const unique = () => task(next++);
  return {
    warmUpKey,
    run: (durationSec) => runLoop({ concurrency, durationMs: durationSec * 1000, task: unique }),
  };
}

/**
 * Measures the targets in alternating rounds (A B C A B C …) so that a change in the machine's load
 * during the run (it may be shared) hits every target alike, then keeps each target's median round.
 * Each target is warmed up first, once per warm-up key and run.
 */
export async function compare(
  bench: Bench,
  targets: readonly Target[],
  durationSec = bench.settings.durationSec,
): Promise<Measurement[]> {
  for (const target of targets) {
    await bench.once(`warm-up ${target.warmUpKey}`, () => target.run(bench.settings.warmupSec));
  }
  const { rounds } = bench.settings;
  const measured: Measurement[][] = targets.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [index, target] of targets.entries())
      measured[index]!.push(await target.run(durationSec / rounds));
  }
  return measured.map(median);
}

function median(rounds: readonly Measurement[]): Measurement {
  const middle = <T>(values: T[], by: (value: T) => number) =>
    values.sort((a, b) => by(a) - by(b))[Math.floor((values.length - 1) / 2)]!;
  const count = rounds.reduce((sum, round) => sum + round.count, 0);
  const seconds = rounds.reduce((sum, round) => sum + round.seconds, 0);
  return {
    count,
    seconds,
    requestsPerSecond: middle([...rounds], (round) => round.requestsPerSecond).requestsPerSecond,
    p50Ms: middle([...rounds], (round) => round.p50Ms).p50Ms,
    p99Ms: middle([...rounds], (round) => round.p99Ms).p99Ms,
  };
}
