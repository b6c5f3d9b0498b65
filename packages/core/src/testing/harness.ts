import { it, type TestContext } from 'vitest';

/**
 * Opens a harness, runs `body` on it and always cleans it up, even when `body` fails or skips the test.
 * The body's own failure wins over a cleanup failure so the report shows the real cause.
 */
export async function runWithHarness<H extends { cleanup(): Promise<void> }>(
  open: () => Promise<H>,
  body: (harness: H) => Promise<void>,
): Promise<void> {
  const harness = await open();
  let failure: { error: unknown } | undefined;
  try {
    await body(harness);
  } catch (error) {
    failure = { error };
  }
  try {
    await harness.cleanup();
  } catch (cleanupError) {
    if (!failure) throw cleanupError;
  }
  if (failure) throw failure.error;
}

/** Declares tests that each open their own harness (see `runWithHarness`). */
export function testWithHarness<H extends { cleanup(): Promise<void> }>(open: () => Promise<H>) {
  return (name: string, body: (harness: H, context: TestContext) => Promise<void>): void => {
    it(name, (context) => runWithHarness(open, (harness) => body(harness, context)));
  };
}

/** Resolves true once `promise` settles, or false after `ms`: used only to avoid deadlocking a test. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = promise.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A promise with its resolver, to pause work at a point the test controls. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

export const nextMacrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
