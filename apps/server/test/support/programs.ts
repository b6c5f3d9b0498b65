import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, where `npm start` and the root `mdstore` script run. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

const FROM_SOURCES = ['--conditions=mdstore-source', '--import', 'tsx'];

const PROGRAMS = {
  server: { built: 'apps/server/dist/main.js', source: 'apps/server/src/main.ts' },
  cli: { built: 'apps/server/dist/cli/main.js', source: 'apps/server/src/cli/main.ts' },
} as const;

/** The newest modification time of any file under `dir` (0 when it is missing). */
function newestUnder(dir: string): number {
  let newest = 0;
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    const time = entry.isDirectory() ? newestUnder(full) : statSync(full).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
}

/**
 * Whether the build is current: every project `tsconfig.build.json` builds has a build record
 * (`tsconfig.tsbuildinfo`, written by each `tsc -b` that rebuilds it) newer than each file of its `src`,
 * and the programs' entry files exist. Checked once per test file.
 */
let current: boolean | undefined;
export function buildIsCurrent(): boolean {
  if (current !== undefined) return current;
  try {
    const build = JSON.parse(readFileSync(path.join(REPO_ROOT, 'tsconfig.build.json'), 'utf8')) as {
      references: { path: string }[];
    };
    current =
      Object.values(PROGRAMS).every((program) => statSync(path.join(REPO_ROOT, program.built)).isFile()) &&
      build.references.every(({ path: project }) => {
        const record = statSync(path.join(REPO_ROOT, project, 'tsconfig.tsbuildinfo')).mtimeMs;
        return newestUnder(path.join(REPO_ROOT, project, 'src')) < record;
      });
  } catch {
    current = false;
  }
  return current;
}

/**
 * The arguments after `node` that start one of the server's programs as a child process, from the
 * repository root: the build (`apps/server/dist`, what `npm start` runs) when it is current, else the
 * sources through tsx. `npm test` builds before it runs the suites, so CI starts the build; a developer
 * who edits a source and runs one test file gets the sources, never a stale build.
 * `MDSTORE_TEST_FROM_SOURCES=1` forces the sources. Why: tsx transpiles the whole server at each start,
 * about a second of CPU more than the build (measured: 1.9 s against 0.8 s of user time for `--help` on a
 * loaded machine), and the suites start a few hundred servers and CLI commands.
 */
export function programArgs(program: keyof typeof PROGRAMS): string[] {
  const { built, source } = PROGRAMS[program];
  if (process.env.MDSTORE_TEST_FROM_SOURCES !== '1' && buildIsCurrent()) return [built];
  return [...FROM_SOURCES, source];
}
