import cliProgress from 'cli-progress';
import type { Progress } from './sync/engine.js';

/**
 * A progress bar on the terminal (stderr) for work on several files; nothing when stderr is not a
 * terminal, with `--json`, or for a single file.
 */
export function terminalProgress(stream: NodeJS.WriteStream, label: string): Progress | undefined {
  if (!stream.isTTY) return undefined;
  let bar: cliProgress.SingleBar | undefined;
  return {
    start(total) {
      if (total < 2) return;
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: `${label} [{bar}] {value}/{total} {file}`,
          hideCursor: true,
          clearOnComplete: true,
          barsize: 30,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total, 0, { file: '' });
    },
    tick(name) {
      bar?.increment(1, { file: name });
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}
