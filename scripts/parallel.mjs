#!/usr/bin/env node
/**
 * `node scripts/parallel.mjs a b c` runs the npm scripts a, b and c side by side and exits 1 if any of
 * them failed. `npm test` runs its checks this way (typecheck, lint, build): each is mostly one thread,
 * and one after the other they left a core idle for minutes. Each script's output is printed whole when it
 * ends, under a line naming it, its result and its time, so outputs never interleave.
 */
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
if (names.length === 0) {
  process.stderr.write('usage: node scripts/parallel.mjs <npm script>...\n');
  process.exit(2);
}

const run = (name) =>
  new Promise((resolve) => {
    const started = Date.now();
    const chunks = [];
    const child = spawn('npm', ['run', '-s', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    const done = (ok, why) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const output = Buffer.concat(chunks).toString();
      process.stdout.write(`\n> ${name}: ${ok ? 'ok' : `FAILED (${why})`} in ${seconds} s\n${output}`);
      resolve(ok);
    };
    child.on('error', (error) => done(false, error.message));
    child.on('close', (code, signal) => done(code === 0, signal ? `signal ${signal}` : `exit ${code}`));
  });

const results = await Promise.all(names.map(run));
process.exit(results.every(Boolean) ? 0 : 1);
