import { randomUUID } from 'node:crypto';
import {
  type AccountRecord,
  DEFAULT_PROJECT_SETTINGS,
  type FileRecord,
  type ProjectRecord,
} from '@mdstore/core';
import { afterEach } from 'vitest';
import { openPostgresStore, type PostgresStore, type PostgresStoreOptions } from '../../src/index.js';
import { createTempSchema, TEST_DATABASE_URL, type TempSchema } from './pg-available.js';

/**
 * Per-test resources: each test gets fresh schemas and stores, all closed and dropped after it.
 * Call once at the top level of a test file.
 */
export const useStores = () => {
  const stores: PostgresStore[] = [];
  const schemas: TempSchema[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await Promise.all(schemas.splice(0).map((schema) => schema.drop()));
  });
  const newSchema = async (): Promise<string> => {
    const schema = await createTempSchema();
    schemas.push(schema);
    return schema.name;
  };
  const open = async (
    o: { schema?: string } & Omit<Partial<PostgresStoreOptions>, 'schema'> = {},
  ): Promise<PostgresStore> => {
    const store = await openPostgresStore({
      connectionString: TEST_DATABASE_URL,
      poolMax: 3,
      ...o,
      schema: o.schema ?? (await newSchema()),
    });
    stores.push(store);
    return store;
  };
  return { open, newSchema };
};

const T0 = Date.UTC(2024, 0, 2, 3, 4, 5, 678);

export const anAccount = (o: Partial<AccountRecord> = {}): AccountRecord => ({
  id: randomUUID(),
  name: `account-${randomUUID().slice(0, 8)}`,
  tier: 'standard',
  createdAt: T0,
  ...o,
});

export const aProject = (o: Partial<ProjectRecord> & { accountId: string }): ProjectRecord => {
  const id = o.id ?? randomUUID();
  return {
    id,
    name: `project-${id.slice(0, 8)}`,
    description: null,
    bucketName: `mdstore-${id}`,
    isDefault: false,
    status: 'active',
    fileCount: 0,
    totalSizeBytes: 0,
    historySizeBytes: 0,
    trashSizeBytes: 0,
    attachmentCount: 0,
    attachmentBytes: 0,
    ...DEFAULT_PROJECT_SETTINGS,
    createdAt: T0,
    updatedAt: T0,
    ...o,
  };
};

export const aFile = (o: Partial<FileRecord> & { projectId: string }): FileRecord => ({
  id: randomUUID(),
  filename: `file-${randomUUID().slice(0, 8)}.md`,
  sizeBytes: 12,
  sha256: 'a'.repeat(64),
  metadataJson: null,
  frontmatterJson: null,
  contentKey: randomUUID(),
  inline: false,
  revision: 1,
  createdAt: T0,
  updatedAt: T0,
  ...o,
});
