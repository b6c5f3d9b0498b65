/**
 * A FIFO async mutex. The writer connection holds at most one transaction, and a transaction spans
 * `await`s, so callers queue here instead of sharing the connection's transaction by accident.
 */
export interface Mutex {
  run<T>(critical: () => Promise<T>): Promise<T>;
}

export function createMutex(): Mutex {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(critical: () => Promise<T>): Promise<T> {
      const result = tail.then(critical);
      // The next caller waits for this one to settle, whatever its outcome.
      tail = result.catch(() => undefined);
      return result;
    },
  };
}
