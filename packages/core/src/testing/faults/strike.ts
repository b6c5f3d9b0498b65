import { StoreUnavailableError } from '../../errors.js';
import type { ByteStream } from '../../ports/blobs.js';
import type { FaultAction, FaultCall, FaultPlan, FaultPoint, FaultPort } from './plan.js';

/** Counts calls per method and asks the plan about each decision point; one per wrapped port. */
export function createStriker(plan: FaultPlan, port: FaultPort) {
  const counts = new Map<string, number>();
  return {
    /** Numbers a new call of `method`. */
    count(method: string): number {
      const call = (counts.get(method) ?? 0) + 1;
      counts.set(method, call);
      return call;
    },
    /** The action for this point, reported to the plan as injected when there is one. */
    decide(method: string, call: number, point: FaultPoint = 'call'): FaultAction | undefined {
      const at: FaultCall = { port, method, call, point };
      const action = plan.decide(at);
      if (action) plan.injected?.({ ...at, action: action.kind });
      return action;
    },
  };
}

export type Striker = ReturnType<typeof createStriker>;

/**
 * Runs `real` under `action`: untouched without one; otherwise throws (before or after the real call),
 * or hangs. Stream breaking is the callers' business (`put`, `get`); elsewhere it simply throws.
 */
export async function underFault<T>(
  action: FaultAction | undefined,
  real: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  if (!action) return real();
  if (action.kind === 'hang') return hang(action.maxMs, action.error, signal);
  if (action.kind === 'pause') {
    await action.until().catch(() => {});
    return real();
  }
  if (action.kind === 'throw' && action.when === 'after') {
    // The effect happens; only the answer is lost.
    await real().catch(() => {});
  }
  throw action.error();
}

/** Never answers: rejects with the signal's reason when it fires, or with a timeout after `maxMs`. */
export function hang(
  maxMs: number,
  error: (() => unknown) | undefined,
  signal?: AbortSignal,
): Promise<never> {
  return new Promise<never>((_resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      reject(error ? error() : new StoreUnavailableError(`injected: no answer within ${maxMs} ms`));
    }, maxMs);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The first `afterBytes` bytes of `source`, then `error()`: a stream that breaks half-way. It breaks
 * even when the source is shorter (at its end), so the fault always strikes. The source is told to stop.
 */
export async function* breakAfter(
  source: ByteStream,
  afterBytes: number,
  error: () => unknown,
): AsyncGenerator<Uint8Array> {
  const chunks = source[Symbol.asyncIterator]();
  let passed = 0;
  let finished = false;
  try {
    while (passed < afterBytes) {
      const step = await chunks.next();
      if (step.done) {
        finished = true;
        break;
      }
      const room = afterBytes - passed;
      const chunk = step.value.byteLength > room ? step.value.subarray(0, room) : step.value;
      passed += chunk.byteLength;
      yield chunk;
    }
    throw error();
  } finally {
    // Not awaited: a stalled producer must not hold the failure back.
    if (!finished)
      void Promise.resolve()
        .then(() => chunks.return?.())
        .catch(() => {});
  }
}
