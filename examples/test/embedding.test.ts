import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repositoryRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

describe('the embedding example', () => {
  it('runs to completion from the repository root and prints what it stored', async () => {
    // The same command as `npm run example`; execFile rejects on a non-zero exit code.
    const { stdout } = await run(
      process.execPath,
      ['--conditions=mdstore-source', '--import', 'tsx', 'examples/embedding/main.ts'],
      { cwd: repositoryRoot, timeout: 30_000 },
    );
    expect(stdout).toContain('account: embedding-demo (standard)');
    expect(stdout).toContain('project: Notes');
    expect(stdout).toMatch(
      /uploaded: hello\.md \(\d+ bytes\) at memory:\/\/mdstore-[0-9a-f-]{36}\/hello\.md/,
    );
    expect(stdout).toContain('files: hello.md');
    expect(stdout).toContain('# Hello, mdstore');
    expect(stdout).toContain('\u00e9\u{1F600}');
    expect(stdout).toContain('metadata: {"reviewed":true}');
    expect(stdout.trimEnd().endsWith('embedding example: all checks passed')).toBe(true);
  });
});
