// What the cluster primary and its serving workers tell each other (node:cluster IPC), and the variables
// the primary sets for a worker it forks.

/** `1` for the worker forked to hold the maintenance duties from its start, `0` for the others. */
export const WORKER_DUTIES_VARIABLE = 'MDSTORE_WORKER_DUTIES';
/** The worker's slot, 0 … MDSTORE_WORKERS − 1 (a replacement takes the slot of the worker it replaces). */
export const WORKER_SLOT_VARIABLE = 'MDSTORE_WORKER_SLOT';

/** Worker → primary: serving (its listener is open and its stores ready). */
export interface WorkerReady {
  readonly type: 'mdstore:ready';
  readonly url: string;
  readonly redirectUrl?: string;
  readonly instanceId: string;
}

/** Primary → worker: take the maintenance duties (the worker holding them died). */
export interface TakeDuties {
  readonly type: 'mdstore:take-duties';
}

export function isWorkerReady(message: unknown): message is WorkerReady {
  return (message as { type?: unknown } | null)?.type === 'mdstore:ready';
}

export function isTakeDuties(message: unknown): message is TakeDuties {
  return (message as { type?: unknown } | null)?.type === 'mdstore:take-duties';
}
