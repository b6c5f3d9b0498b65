// Creates accounts in the store the environment points at, exactly as `npm run mdstore -- accounts create`
// does, but many in one process (starting the CLI once per account would take a second each).
// Usage: seed-accounts.ts NAME... ; prints a JSON array of the created accounts on stdout.
import 'reflect-metadata';
import { runCommand } from '../../apps/server/src/cli/commands.js';
import { createRuntime } from '../../apps/server/src/composition/index.js';
import { loadConfig } from '../../apps/server/src/config/index.js';
import { createLogger } from '../../apps/server/src/logger.js';

const names = process.argv.slice(2);
const logger = createLogger({ level: 'warn', stdout: process.stderr, stderr: process.stderr });
const runtime = await createRuntime(loadConfig(process.env), { logger });
try {
  const created: unknown[] = [];
  for (const name of names) {
    created.push(await runCommand(runtime.store, { kind: 'accounts create', name, tier: undefined }));
  }
  process.stdout.write(`${JSON.stringify(created)}\n`);
} finally {
  await runtime.close();
}
