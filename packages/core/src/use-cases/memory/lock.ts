/**
 * Commands on one memory file within one process run one after the other (a queue per project and
 * filename): they would otherwise mostly lose their If-Match to each other and retry. Across processes
 * (several servers on one store) If-Match and the retries of `edit.ts` in this folder serialise them.
 * The queues belong to one store (one `MdStoreContext`) and are dropped when empty.
 */
const queues = new WeakMap<object, Map<string, Promise<unknown>>>();

export async function inTurn<T>(owner: object, key: string, work: () => Promise<T>): Promise<T> {
  let byKey = queues.get(owner);
  if (!byKey) {
    byKey = new Map();
    queues.set(owner, byKey);
  }
  const before = byKey.get(key) ?? Promise.resolve();
  const mine = before.then(work, work);
  const tail = mine.then(
    () => undefined,
    () => undefined,
  );
  byKey.set(key, tail);
  try {
    return await mine;
  } finally {
    if (byKey.get(key) === tail) byKey.delete(key);
  }
}
