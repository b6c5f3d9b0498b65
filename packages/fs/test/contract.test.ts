import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeBlobStoreContract } from '@mdstore/core/testing';
import { createFsBlobStore } from '../src/index.js';

describeBlobStoreContract('fs', async () => {
  const parent = await mkdtemp(path.join(tmpdir(), 'mdstore-fs-contract-'));
  const store = createFsBlobStore({ root: path.join(parent, 'blobs') });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(parent, { recursive: true, force: true });
    },
  };
});
