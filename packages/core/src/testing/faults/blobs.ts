import type { BlobStore } from '../../ports/blobs.js';
import type { FaultPlan } from './plan.js';
import { breakAfter, createStriker, underFault } from './strike.js';

/**
 * The blob store with faults injected by `plan` on every method but `close`. `breakStream` on `put`
 * hands the store content that fails after N bytes (the store must keep nothing); on `get` the returned
 * content fails after N bytes; on `list` the listing fails after N entries. Otherwise faithful.
 */
export function withBlobFaults(inner: BlobStore, plan: FaultPlan): BlobStore {
  const striker = createStriker(plan, 'blobs');
  const decide = (method: string) => striker.decide(method, striker.count(method));

  const store: BlobStore = {
    scheme: inner.scheme,
    supports: inner.supports,
    createBucket: (o) => underFault(decide('createBucket'), () => inner.createBucket(o), o.signal),
    deleteBucket: (o) => underFault(decide('deleteBucket'), () => inner.deleteBucket(o), o.signal),
    bucketExists: (o) => underFault(decide('bucketExists'), () => inner.bucketExists(o), o.signal),
    probe: (o) => underFault(decide('probe'), () => inner.probe(o), o.signal),
    stat: (o) => underFault(decide('stat'), () => inner.stat(o), o.signal),
    delete: (o) => underFault(decide('delete'), () => inner.delete(o), o.signal),

    put(o) {
      const action = decide('put');
      if (action?.kind === 'breakStream') {
        return inner.put({ ...o, content: breakAfter(o.content, action.afterBytes, action.error) });
      }
      return underFault(action, () => inner.put(o), o.signal);
    },

    async get(o) {
      const action = decide('get');
      if (action?.kind !== 'breakStream') return underFault(action, () => inner.get(o), o.signal);
      const opened = await inner.get(o);
      return { ...opened, content: breakAfter(opened.content, action.afterBytes, action.error) };
    },

    close: () => inner.close(),
  };
  const list = inner.list?.bind(inner);
  if (list) {
    store.list = (o) => {
      const action = decide('list');
      return faultyListing(() => list(o), action, o.signal);
    };
  }
  return store;
}

async function* faultyListing<T>(
  real: () => AsyncIterable<T>,
  action: ReturnType<ReturnType<typeof createStriker>['decide']>,
  signal: AbortSignal | undefined,
): AsyncGenerator<T> {
  if (action?.kind !== 'breakStream') {
    await underFault(action, async () => {}, signal);
    yield* real();
    return;
  }
  let passed = 0;
  for await (const entry of real()) {
    if (passed >= action.afterBytes) break;
    passed++;
    yield entry;
  }
  throw action.error();
}
