// The `mdstore` command. `bin/mdstore.js` runs this file (built, or from source in a clone).
import { run } from './run.js';

// Run by bin/mdstore.js from the sources: when that launcher dies (even by SIGKILL), stop too, as a
// built command would have. Whatever was done is recorded: a sync resumes where it stopped.
if (process.send !== undefined) {
  process.on('disconnect', () => process.exit(130));
  process.channel?.unref();
}

const code = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});
process.exitCode = code;
