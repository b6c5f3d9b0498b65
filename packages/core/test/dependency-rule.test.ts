import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The dependency rule is enforced by the linter (`biome.json`, an override for `packages/core/src/**`):
 * an allowlist (relative modules and a few pure libraries), so a module nobody thought of forbidding
 * (`node:http`) is refused too. This test proves the rule is live: Biome must reject each forbidden
 * import in a core source file, accept the allowed ones, and accept a forbidden one outside the core.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');

/** Lints a probe file written into `folder` for the moment (Biome's overrides match real paths). */
function lint(folder: string, source: string) {
  const probe = path.join(folder, `dependency-probe-${randomBytes(4).toString('hex')}.ts`);
  writeFileSync(path.join(repoRoot, probe), source);
  try {
    const result = spawnSync(process.execPath, [biome, 'lint', '--only=style/noRestrictedImports', probe], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(path.join(repoRoot, probe), { force: true });
  }
}

const FORBIDDEN = [
  'express',
  'busboy',
  'pg',
  'better-sqlite3',
  'node:fs',
  'node:fs/promises',
  'fs',
  '@aws-sdk/client-s3',
  'tsyringe',
  '@mdstore/sqlite',
  // Not named anywhere in biome.json: refused because the rule is an allowlist (issue 35).
  'node:http',
  'node:net',
  'http',
  'undici',
  'node:child_process',
];

/** What the core may import: its own modules and the pure libraries biome.json allows. */
const ALLOWED = [
  './sibling.js',
  '../parent/module.js',
  'valibot',
  '@noble/hashes/sha2',
  'markdown-it',
  'yaml',
];

describe('the core dependency rule', () => {
  it.each(FORBIDDEN)('refuses an import of %s inside packages/core/src', (specifier) => {
    const source = `import * as forbidden from '${specifier}';\nexport const used = forbidden;\n`;
    const result = lint('packages/core/src', source);
    expect(result.ok).toBe(false);
    expect(result.output).toContain('noRestrictedImports');
  });

  it.each(ALLOWED)('accepts an import of %s inside packages/core/src', (specifier) => {
    const source = `import * as allowed from '${specifier}';\nexport const used = allowed;\n`;
    expect(lint('packages/core/src', source).ok).toBe(true);
  });

  it('accepts the same import outside the core', () => {
    const source = `import * as allowed from 'express';\nexport const used = allowed;\n`;
    expect(lint('apps/server/src', source).ok).toBe(true);
  });
});
