import { type RunningS3rver, startS3rver } from '@mdstore/s3/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, freshSchemaName, skipWithoutPostgres } from '../support/adapters.js';
import {
  expectNothingLost,
  FUZZ_PATH,
  initialText,
  type MemoryRunner,
  runMemoryFuzz,
} from '../support/memory-fuzz.js';
import {
  type CliAccount,
  cleanUp,
  createAccount,
  type Instance,
  killAllInstances,
  sharedEnvironment,
  startInstance,
} from './support.js';

/**
 * No lost memory across two server processes on one Postgres schema and one S3 endpoint (extensions
 * §14): the 20 writers of the fuzz alternate between the instances, so each instance's per-file queue
 * sees only half of them and the two meet through If-Match and its retries in the store they share.
 */
const skip = await skipWithoutPostgres('multi-instance memory fuzz');

describe.skipIf(skip)('memory commands from two instances on one Postgres + S3 store', () => {
  const schema = freshSchemaName();
  let s3: RunningS3rver;
  let cleanup: (() => Promise<void>) | undefined;
  let instances: Instance[] = [];
  let account: CliAccount;

  beforeAll(async () => {
    s3 = await startS3rver();
    const shared = await sharedEnvironment({
      schema,
      s3,
      extra: { MDSTORE_RATE_LIMIT_STANDARD: '1000000000' },
    });
    cleanup = shared.cleanup;
    instances = await Promise.all([startInstance(shared.env), startInstance(shared.env)]);
    account = await createAccount('memory-fuzz', shared.env);
  }, 120_000);

  afterAll(() =>
    cleanUp([
      () => Promise.allSettled(instances.map((instance) => instance.stop())),
      killAllInstances,
      () => s3?.stop(),
      () => cleanup?.(),
      () => dropSchema(schema),
    ]),
  );

  it('lose nothing: 20 writers × 50 str_replace/insert, every token present at the end', async () => {
    const run: MemoryRunner = async (writer, input) => {
      const response = await instances[writer % 2]!.fetch(
        `/api/projects/${account.defaultProjectId}/memory`,
        {
          method: 'POST',
          key: account.apiKey,
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(input),
        },
      );
      const text = await response.text();
      expect(response.status, text).toBe(200);
      return JSON.parse(text) as { result: string; is_error: boolean };
    };
    expect((await run(0, { command: 'create', path: FUZZ_PATH, file_text: initialText() })).is_error).toBe(
      false,
    );
    const tokens = await runMemoryFuzz(run);
    const seen = await run(1, { command: 'view', path: FUZZ_PATH });
    expectNothingLost(seen.result, tokens);
    const url = `/api/projects/${account.defaultProjectId}/files/${encodeURIComponent('memories/fuzz.txt.md')}`;
    const file = await instances[0]!.fetch(url, { method: 'HEAD', key: account.apiKey });
    // One revision per command (plus the create): none merged, none lost.
    expect(file.headers.get('etag')).toMatch(new RegExp(`-${1 + tokens.length}"$`));
  }, 90_000);
});
