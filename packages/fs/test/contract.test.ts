import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeBlobStoreContract } from '@mdstore/core/testing';
import { createFsBlobStore } from '../src/index.js';

describeBlobStoreContract(
  'fs',
  async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'mdstore-fs-contract-'));
    const root = path.join(parent, 'blobs');
    const store = createFsBlobStore({ root });
    return {
      store,
      cleanup: async () => {
        await store.close();
        await rm(parent, { recursive: true, force: true });
      },
      // The blob folder moved away and an unreadable file put in its place (issue 22, finding 8).
      breakStore: async () => {
        await rename(root, path.join(parent, 'moved-away'));
        await writeFile(root, 'not a folder', { mode: 0o000 });
      },
    };
  },
  { breakable: true },
);
