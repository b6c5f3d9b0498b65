// The `mdstore` command. `bin/mdstore.js` runs this file (built, or from source in a clone).
import { run } from './run.js';

const code = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});
process.exitCode = code;
