import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { requestIdFor } from './request-id.js';

export interface StartingGate {
  /** The request listener to give the HTTP server before the app exists. */
  readonly listener: RequestListener;
  /** From now on every request goes to `app`. */
  open(app: RequestListener): void;
}

/**
 * Lets the listener be bound before the stores are opened, so that a second instance started on a busy
 * port fails before it migrates, registers or reconciles anything. Until the app is ready, every request
 * (`/healthz` included: the service does not serve yet) is answered
 * `503 {"detail":"Service Unavailable: starting"}` with `Retry-After: 1` and `Connection: close`.
 */
export function startingGate(options: { secure: boolean }): StartingGate {
  let app: RequestListener | undefined;
  const starting = (req: IncomingMessage, res: ServerResponse) => {
    req.on('error', () => {});
    res.on('error', () => {});
    req.resume();
    const body = JSON.stringify({ detail: 'Service Unavailable: starting' });
    res.writeHead(503, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      'X-Content-Type-Options': 'nosniff',
      'X-Request-Id': requestIdFor(req.headers),
      'Retry-After': '1',
      Connection: 'close',
      ...(options.secure ? { 'Strict-Transport-Security': 'max-age=31536000' } : {}),
    });
    res.end(body);
  };
  return {
    listener: (req, res) => (app ?? starting)(req, res),
    open(ready) {
      app = ready;
    },
  };
}
