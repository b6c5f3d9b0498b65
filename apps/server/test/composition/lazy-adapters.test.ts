import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mdstore-lazy-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Opens and closes a runtime in a fresh Node process whose module hooks log every module it resolves,
 * and returns those module URLs.
 */
async function modulesResolvedWith(env: Record<string, string>): Promise<string[]> {
  const logFile = path.join(dir, 'resolved.log');
  const { stdout } = await run(
    process.execPath,
    [
      '--conditions=mdstore-source',
      '--import',
      'tsx',
      '--import',
      path.join(FIXTURES, 'record-resolutions.mjs'),
      path.join(FIXTURES, 'open-runtime.ts'),
    ],
    {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        MDSTORE_DATA_DIR: path.join(dir, 'data'),
        MDSTORE_RESOLUTION_LOG: logFile,
        ...env,
      },
    },
  );
  expect(stdout).toBe('closed\n');
  return (await readFile(logFile, 'utf8')).split('\n').filter(Boolean);
}

const loads = (urls: string[], fragment: string) => urls.some((url) => url.includes(fragment));

describe('adapter packages are loaded on demand', () => {
  it('with the default configuration, neither pg nor the AWS SDK is loaded', async () => {
    const urls = await modulesResolvedWith({});
    // The hooks do see the embedded adapters and their driver:
    expect(loads(urls, '/packages/sqlite/src/')).toBe(true);
    expect(loads(urls, '/node_modules/better-sqlite3/')).toBe(true);
    expect(loads(urls, '/packages/fs/src/')).toBe(true);
    // …and nothing of the others:
    expect(loads(urls, '/node_modules/pg/')).toBe(false);
    expect(loads(urls, '/packages/postgres/')).toBe(false);
    expect(loads(urls, '/node_modules/@aws-sdk/')).toBe(false);
    expect(loads(urls, '/packages/s3/')).toBe(false);
  });

  it('with the S3 blob store, the AWS SDK is loaded and the filesystem adapter is not', async () => {
    const urls = await modulesResolvedWith({
      MDSTORE_BLOB_STORE: 's3',
      MDSTORE_S3_ENDPOINT: 'http://127.0.0.1:9',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
    });
    expect(loads(urls, '/node_modules/@aws-sdk/client-s3/')).toBe(true);
    expect(loads(urls, '/packages/fs/')).toBe(false);
    expect(loads(urls, '/node_modules/pg/')).toBe(false);
  });
});
