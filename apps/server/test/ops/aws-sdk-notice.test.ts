import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type RunningS3rver, startS3rver } from '@mdstore/s3/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ChildServer, spawnServer } from './support.js';

let dir: string;
let s3: RunningS3rver;
let server: ChildServer | undefined;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mdstore-aws-notice-'));
  s3 = await startS3rver();
});
afterEach(async () => {
  if (server?.child.exitCode === null) server.child.kill('SIGKILL');
  await s3.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("the AWS SDK's Node.js version notice", () => {
  it('becomes one JSON warn line instead of a multi-line text on stderr', async () => {
    server = spawnServer({
      MDSTORE_DATA_DIR: dir,
      PORT: '0',
      MDSTORE_BLOB_STORE: 's3',
      MDSTORE_S3_ENDPOINT: s3.endpoint,
      MDSTORE_S3_REGION: 'us-east-1',
      MDSTORE_S3_FORCE_PATH_STYLE: 'true',
      MDSTORE_S3_CHECKSUM: 'WHEN_REQUIRED',
      AWS_ACCESS_KEY_ID: s3.s3ClientOptions.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.s3ClientOptions.credentials.secretAccessKey,
    });
    const ready = await server.logLine(/^mdstore listening on /);
    // The S3 client exists and has answered: the SDK had its chance to print.
    expect((await fetch(`${String(ready.url)}/readyz`)).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const lines = server.stderr.map((line) => JSON.parse(line) as Record<string, unknown>);
    const notices = lines.filter((line) => String(line.msg).startsWith('AWS SDK for JavaScript'));
    const major = Number(process.versions.node.split('.')[0]);
    expect(notices).toHaveLength(major < 22 ? 1 : 0);
    expect(server.stderr.join('\n')).not.toContain('NodeVersionSupportWarning');
  });
});
