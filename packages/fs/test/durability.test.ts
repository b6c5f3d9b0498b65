import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { encodeKey } from '../src/safe-path.js';
import { bytesOf, freshStore, useTempRoots } from './helpers.js';

// Records, in order, every fsync (with the path its handle was opened on), rename and unlink.
const events = vi.hoisted(() => [] as string[]);
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    open: async (...args: Parameters<typeof actual.open>) => {
      const handle = await actual.open(...args);
      const sync = handle.sync.bind(handle);
      handle.sync = async () => {
        events.push(`fsync ${String(args[0])}`);
        await sync();
      };
      return handle;
    },
    rename: async (from: string, to: string) => {
      await actual.rename(from, to);
      events.push(`rename ${from} -> ${to}`);
    },
    unlink: async (file: string) => {
      await actual.unlink(file);
      events.push(`unlink ${file}`);
    },
  };
});

const makeRoot = useTempRoots();
const bucket = 'bucket-one';

beforeEach(() => {
  events.length = 0;
});

describe('durability', () => {
  it('createBucket syncs the root', async () => {
    const { store, root } = await freshStore(makeRoot);
    await store.bucketExists({ bucket });
    events.length = 0;
    await store.createBucket({ bucket });
    expect(events).toEqual([`fsync ${root}`]);
  });

  it('put syncs the file, renames it into place, then syncs its directory and every new parent', async () => {
    const { store, root } = await freshStore(makeRoot);
    await store.createBucket({ bucket });
    const key = 'k'.repeat(300); // three segments: two new directories
    const [first, second, last] = encodeKey(key);
    const bucketDir = path.join(root, bucket);
    const file = path.join(bucketDir, first!, second!, last!);
    events.length = 0;

    await store.put({ bucket, key, content: bytesOf('x'), maxBytes: 10 });

    expect(events).toHaveLength(5);
    const [syncTemp, renamed, ...directorySyncs] = events;
    const temp = syncTemp!.replace('fsync ', '');
    expect(path.dirname(temp)).toBe(path.join(root, '.tmp'));
    expect(path.basename(temp)).toMatch(new RegExp(`^${process.pid}-[0-9a-f]+\\.tmp$`));
    expect(renamed).toBe(`rename ${temp} -> ${file}`);
    expect(directorySyncs).toEqual([
      `fsync ${path.dirname(file)}`,
      `fsync ${bucketDir}`,
      `fsync ${path.join(bucketDir, first!)}`,
    ]);
  });

  it('put into existing directories syncs just the containing directory', async () => {
    const { store, root } = await freshStore(makeRoot);
    await store.createBucket({ bucket });
    await store.put({ bucket, key: 'a.md', content: bytesOf('x'), maxBytes: 10 });
    events.length = 0;
    await store.put({ bucket, key: 'a.md', content: bytesOf('y'), maxBytes: 10 });
    expect(events.slice(1)).toEqual([expect.stringMatching(/^rename /), `fsync ${path.join(root, bucket)}`]);
  });

  it('delete unlinks then syncs the directory', async () => {
    const { store, root } = await freshStore(makeRoot);
    await store.createBucket({ bucket });
    await store.put({ bucket, key: 'a.md', content: bytesOf('x'), maxBytes: 10 });
    events.length = 0;
    await store.delete({ bucket, key: 'a.md' });
    const file = path.join(root, bucket, encodeKey('a.md')[0]!);
    expect(events).toEqual([`unlink ${file}`, `fsync ${path.join(root, bucket)}`]);
  });

  it('deleteBucket moves the bucket to the trash and syncs before removing it', async () => {
    const { store, root } = await freshStore(makeRoot);
    await store.createBucket({ bucket });
    events.length = 0;
    await store.deleteBucket({ bucket });
    expect(events).toEqual([
      expect.stringMatching(
        new RegExp(`^rename ${path.join(root, bucket)} -> ${path.join(root, '.trash')}/`),
      ),
      `fsync ${root}`,
      `fsync ${path.join(root, '.trash')}`,
    ]);
  });
});
