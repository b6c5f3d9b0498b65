import type { IncomingMessage, Server } from 'node:http';
import { Socket } from 'node:net';

/** How long a connection is kept half-closed, reading and discarding, after its last answer. */
export const DEFAULT_LINGER_MS = 2_000;

const lingering = Symbol('mdstore.lingeringClose');

/**
 * Staged disconnect (RFC 9112 §9.6, Apache's and nginx's "lingering close"). When the server closes a
 * connection after an answer while the client is still sending a request body it will never read (a
 * `413` with `Connection: close`), closing the socket at once with bytes still unread in its receive
 * buffer makes the kernel send RST instead of FIN; the client then loses the answer it had not read yet
 * (its write fails with ECONNRESET/EPIPE first). So such a connection is half-closed (FIN after the
 * answer), and what still arrives is read and discarded until the client closes its side or `lingerMs`
 * passes; only then is the socket destroyed. Connections whose request was read completely close as
 * Node closes them.
 */
export function lingerBeforeClosing(server: Server, lingerMs = DEFAULT_LINGER_MS): void {
  server.on('request', (req: IncomingMessage) => {
    const socket = req.socket as Socket & { [lingering]?: IncomingMessage };
    const installed = socket[lingering] !== undefined;
    socket[lingering] = req;
    if (installed) return;
    // Node's HTTP server ends a connection after its last answer with `socket.destroySoon()`.
    socket.destroySoon = function destroySoonAfterLingering(this: typeof socket) {
      const current = this[lingering];
      if (!current || current.complete || this.destroyed) {
        Socket.prototype.destroySoon.call(this);
        return;
      }
      lingerThenDestroy(this, lingerMs);
    };
  });
}

function lingerThenDestroy(socket: Socket, lingerMs: number): void {
  const destroy = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(destroy, lingerMs);
  timer.unref();
  socket.once('end', destroy);
  socket.once('close', () => clearTimeout(timer));
  // The HTTP parser keeps consuming what arrives; the request it belongs to discards it.
  if (socket.writable) socket.end();
  socket.resume();
}
