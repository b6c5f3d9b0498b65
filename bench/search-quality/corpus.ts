import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from '../lib/processes.js';

/** A README of the corpus: its file name in the project (`@scope/name` → `@scope__name.md`) and its bytes. */
export interface CorpusFile {
  readonly filename: string;
  readonly content: Buffer;
}

/** READMEs outside these sizes are left out (stubs, and the few huge API references). */
export const README_MIN_BYTES = 1024;
export const README_MAX_BYTES = 64 * 1024;

/** The file name a package's README gets in the corpus: `@scope/name` → `@scope__name.md`. */
export const readmeFilename = (packageDir: string): string => `${packageDir.replaceAll('/', '__')}.md`;

/**
 * Real Markdown, fixed by package-lock.json: the README.md of every package directly under the repository's
 * node_modules (scoped ones included; not the workspace's own, which are links) of 1–64 KiB, in sorted order (by package directory, code units), so
 * the same lock file gives the same corpus. `count` keeps the first ones only.
 */
export async function readmeCorpus(count = Number.POSITIVE_INFINITY): Promise<CorpusFile[]> {
  const root = path.join(REPO_ROOT, 'node_modules');
  const dirs: string[] = [];
  for (const entry of (await readdir(root)).sort()) {
    if (entry.startsWith('.')) continue;
    if (!entry.startsWith('@')) dirs.push(entry);
    else for (const inner of (await readdir(path.join(root, entry))).sort()) dirs.push(`${entry}/${inner}`);
  }
  const corpus: CorpusFile[] = [];
  for (const dir of dirs) {
    if (corpus.length >= count) break;
    // The workspace's own packages are links to this repository's folders, not installed packages.
    if ((await lstat(path.join(root, dir))).isSymbolicLink()) continue;
    const file = path.join(root, dir, 'README.md');
    const size = await stat(file).then(
      (info) => (info.isFile() ? info.size : 0),
      () => 0,
    );
    if (size < README_MIN_BYTES || size > README_MAX_BYTES) continue;
    corpus.push({ filename: readmeFilename(dir), content: await readFile(file) });
  }
  return corpus;
}
