/**
 * The content work pool's defaults (`MDSTORE_CONTENT_WORK_*`), defined once: the configuration reads
 * them, docs/configuration.md and docs/reliability.md quote them.
 *
 * - `threads`: worker threads; 0 runs every step inline within one step's bound (no pool). One by
 *   default: with the thread serving requests, that is two cores busy at most.
 * - `deadlineMs`: a task still running after this is stopped (its worker terminated) and refused; the
 *   largest step the pool accepts is estimated at about 3 s of CPU, so this leaves room for a loaded
 *   machine.
 * - `memoryMb`: each worker's old-generation heap; past it the worker dies and its task is refused.
 * - `queue`: tasks waiting for a worker; past it a step is refused at once with 503 and `Retry-After`.
 * - `perAccount` (`CONTENT_WORK_LIMITS` in the core): tasks of one account running and waiting; past it
 *   that account's next step is refused the same way, while other accounts keep the other places.
 */
export const CONTENT_WORK_DEFAULTS = {
  threads: 1,
  deadlineMs: 10_000,
  memoryMb: 256,
  queue: 8,
} as const;

export interface ContentWorkConfig {
  readonly threads: number;
  readonly deadlineMs: number;
  readonly memoryMb: number;
  readonly queue: number;
  /** Tasks of one account at once (default `CONTENT_WORK_LIMITS.defaultTasksPerAccount`). */
  readonly perAccount?: number;
}
