import { MIGRATIONS } from '@mdstore/postgres';
import { type RunningS3rver, startS3rver } from '@mdstore/s3/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminQuery, dropSchema, freshSchemaName, skipWithoutPostgres } from '../support/adapters.js';
import {
  cleanUp,
  createAccount,
  killAllInstances,
  sharedEnvironment,
  startInstance,
  uploadRequest,
} from './support.js';

const skip = await skipWithoutPostgres('multi-instance start-up tests');

describe.skipIf(skip)('two instances starting at once on a fresh schema', () => {
  const schema = freshSchemaName();
  let s3: RunningS3rver;
  let env: Record<string, string>;
  let cleanup: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    s3 = await startS3rver();
    ({ env, cleanup } = await sharedEnvironment({ schema, s3 }));
  });

  afterAll(() => cleanUp([killAllInstances, () => s3?.stop(), () => dropSchema(schema), () => cleanup?.()]));

  it('migrate the schema once, both serve, and each unregisters when stopped', async () => {
    const { rows: before } = await adminQuery(
      'SELECT 1 FROM information_schema.schemata WHERE schema_name = $1',
      [schema],
    );
    expect(before).toHaveLength(0);

    const [a, b] = await Promise.all([startInstance(env), startInstance(env)]);

    const { rows: applied } = await adminQuery<{ version: number; name: string }>(
      `SELECT version, name FROM ${schema}.mdstore_migrations ORDER BY version`,
    );
    expect(applied).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
    for (const instance of [a, b]) {
      expect(instance.logs.some((line) => line.msg === 'reconciliation finished')).toBe(true);
      // stderr also carries Node's own warnings (the AWS SDK's about Node 20): only our log lines count.
      expect(instance.stderr.filter((line) => line.startsWith('{"time"'))).toEqual([]);
    }

    const { apiKey, defaultProjectId } = await createAccount('together', env);
    for (const [instance, other] of [
      [a, b],
      [b, a],
    ] as const) {
      expect((await instance.fetch('/healthz')).status).toBe(200);
      const name = `from-${instance.instanceId}.md`;
      const upload = await instance.fetch(
        `/api/projects/${defaultProjectId}/files`,
        uploadRequest(apiKey, name, '# hi'),
      );
      expect(upload.status).toBe(201);
      expect(
        (await other.fetch(`/api/projects/${defaultProjectId}/files/${name}`, { key: apiKey })).status,
      ).toBe(200);
    }

    const registered = async () =>
      (await adminQuery<{ id: string }>(`SELECT id FROM ${schema}.instances ORDER BY id`)).rows.map(
        (r) => r.id,
      );
    expect(await registered()).toEqual([a.instanceId, b.instanceId].sort());
    expect(await a.stop()).toBe(0);
    expect(await registered()).toEqual([b.instanceId]);
    expect((await b.fetch(`/api/projects/${defaultProjectId}/files`, { key: apiKey })).status).toBe(200);
    expect(await b.stop()).toBe(0);
    expect(await registered()).toEqual([]);
  });
});
