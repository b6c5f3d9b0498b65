import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type RunningS3rver, startS3rver } from '@mdstore/s3/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { programArgs, REPO_ROOT } from '../support/programs.js';

let dir: string;
let s3: RunningS3rver;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mdstore-cli-aws-'));
  s3 = await startS3rver();
});
afterAll(async () => {
  await s3?.stop();
  await rm(dir, { recursive: true, force: true });
});

function cli(args: string[], env: Record<string, string> = {}) {
  const argv = [...programArgs('cli'), ...args];
  return new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      argv,
      {
        cwd: REPO_ROOT,
        env: {
          PATH: process.env.PATH,
          MDSTORE_DATA_DIR: dir,
          MDSTORE_BLOB_STORE: 's3',
          MDSTORE_S3_ENDPOINT: s3.endpoint,
          MDSTORE_S3_REGION: 'us-east-1',
          MDSTORE_S3_FORCE_PATH_STYLE: 'true',
          MDSTORE_S3_CHECKSUM: 'WHEN_REQUIRED',
          AWS_ACCESS_KEY_ID: s3.s3ClientOptions.credentials.accessKeyId,
          AWS_SECRET_ACCESS_KEY: s3.s3ClientOptions.credentials.secretAccessKey,
          ...env,
        },
      },
      (error, stdout, stderr) => {
        resolve({ status: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

describe("the admin CLI with S3 configured and the AWS SDK's Node.js version notice", () => {
  it('prints only its JSON: nothing on stderr, though the S3 client made a bucket', async () => {
    // Creating an account creates its default project, whose bucket the S3 client makes.
    const created = await cli(['accounts', 'create', '--name', 'aws-quiet']);
    expect(created.stderr).toBe('');
    expect(created.status).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'aws-quiet' });
    const listed = await cli(['accounts', 'list']);
    expect(listed).toMatchObject({ status: 0, stderr: '' });
  });

  it("keeps an operator's own setting of the switch: with false, the SDK prints its notice", async () => {
    const listed = await cli(['accounts', 'create', '--name', 'aws-loud'], {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'false',
    });
    expect(listed.status).toBe(0);
    const major = Number(process.versions.node.split('.')[0]);
    expect(listed.stderr.includes('NodeVersionSupportWarning')).toBe(major < 22);
  });
});
