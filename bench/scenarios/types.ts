import type { Bench } from '../lib/context.js';

/** One selectable scenario (`--only <name>`); it records its rows in `bench.results`. */
export interface Scenario {
  readonly name: string;
  readonly description: string;
  /** What the scenario uses; the run starts all of it up front, in parallel, before measuring anything. */
  readonly needs: readonly Need[];
  run(bench: Bench): Promise<void>;
}

export type Need = 'sqlite+fs' | 'postgres+s3' | 'express' | 'object-stores' | 'transfer-server';

export const FLAVOURS = ['sqlite+fs', 'postgres+s3'] as const;
