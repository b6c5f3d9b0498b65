import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { onResponseClose } from './close-hook.js';

/** Methods that only read: they are not writes the background work gives way to. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The writes this process is serving, so that background work can give way to them (extensions §15:
 * turning embeddings on never slows a write). A request whose method writes counts from its arrival to
 * its response's end; reads, held long polls and streams do not count.
 */
export interface WriteActivity {
  /** `app`, counting the writes it serves. */
  wrap(app: RequestListener): RequestListener;
  /** Writes being served now. */
  inFlight(): number;
  /** Resolves once no write is being served, or after `maxWaitMs` at most (a steady load never starves the work). */
  quiet(maxWaitMs: number): Promise<void>;
}

export function writeActivity(): WriteActivity {
  let writes = 0;
  const waiters = new Set<() => void>();
  const ended = () => {
    writes -= 1;
    if (writes > 0) return;
    for (const wake of [...waiters]) wake();
  };
  return {
    wrap: (app) => (req: IncomingMessage, res: ServerResponse) => {
      if (!READS.has(req.method ?? 'GET')) {
        writes += 1;
        onResponseClose(res, ended);
      }
      return app(req, res);
    },
    inFlight: () => writes,
    quiet: (maxWaitMs) =>
      writes === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const wake = () => {
              clearTimeout(timer);
              waiters.delete(wake);
              resolve();
            };
            const timer = setTimeout(wake, maxWaitMs);
            timer.unref();
            waiters.add(wake);
          }),
  };
}
