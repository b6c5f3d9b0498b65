import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { serverEnvironment } from '../lib/mdstore.js';
import { REPO_ROOT, SOURCE_NODE_ARGS } from '../lib/processes.js';
import type { Scenario } from './types.js';

/** Extensions §7: the write paths with the change feed on vs off (in process, see the script; target ≥ 0.9×). */
const feedWrite: Scenario = {
  name: 'feed-write',
  needs: [],
  description: 'in process: content and metadata updates, one at a time, with the change feed on vs off',
  async run(bench) {
    const flavour = await bench.flavour('sqlite+fs');
    if (!flavour) return;
    const dataDir = await bench.tempDir('feed-write');
    const env = serverEnvironment({ dataDir, flavour, logLevel: 'warn' });
    const script = path.join(REPO_ROOT, 'bench/support/feed-cost.ts');
    const args = [...SOURCE_NODE_ARGS, script, ...(bench.settings.quick ? ['--quick'] : [])];
    const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: REPO_ROOT, env });
    const result = JSON.parse(stdout) as { feed_ms: number; plain_ms: number };
    bench.results.lower(
      'change feed: content (4 KiB) and metadata updates, one at a time, in process [sqlite+fs]',
      'mean request ms (median of rounds)',
      result.feed_ms,
      result.plain_ms,
      'same store, feed off',
    );
  },
};

export const changeScenarios: readonly Scenario[] = [feedWrite];
