#!/usr/bin/env node
// The `mdstore` command. Installed from npm it runs the built `dist/main.js`. In a clone of the repository
// (`src/` beside this folder and tsx installed) it runs the TypeScript sources instead, so `npx mdstore`
// works right after `npm install`, with no build, and never runs a stale build.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = fileURLToPath(new URL('../src/main.ts', import.meta.url));

function tsxLoader() {
  if (!existsSync(source)) return undefined;
  try {
    return import.meta.resolve('tsx');
  } catch {
    return undefined;
  }
}

const loader = tsxLoader();
if (loader === undefined) {
  await import('../dist/main.js');
} else {
  const child = spawn(
    process.execPath,
    ['--conditions=mdstore-source', '--import', loader, source, ...process.argv.slice(2)],
    // The IPC channel tells the child when this process is gone, even if it was killed outright.
    { stdio: ['inherit', 'inherit', 'inherit', 'ipc'] },
  );
  // Ctrl-C reaches the child through the terminal; this process waits for it and exits as it did.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else {
      process.exit(code ?? 1);
    }
  });
}
