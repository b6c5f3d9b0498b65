import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

/** How long a connection is kept half-closed, reading and discarding, after its last answer. */
export const DEFAULT_LINGER_MS = 2_000;

const lingering = Symbol('mdstore.lingeringClose');

/**
 * Staged disconnect (RFC 9112 §9.6; Apache's and nginx's "lingering close"). Node ends a connection
 * after its last answer (`Connection: close`) with `socket.destroySoon()`: FIN, then `close()` as soon
 * as the answer is flushed. If the client is still sending (a request body the server refused with a
 * `413`, bytes after a short `Content-Length`), the kernel then holds unread bytes, and closing a socket
 * with unread bytes sends RST instead of FIN: the client's pending write fails with ECONNRESET/EPIPE and
 * it loses the answer it had not read yet. So the connection is half-closed (FIN after the answer) and
 * what still arrives is read and discarded until the client closes its side (a well-behaved client does
 * so at once on reading the answer) or `lingerMs` passes; only then is the socket destroyed.
 */
export function lingerBeforeClosing(server: Server, lingerMs = DEFAULT_LINGER_MS): void {
  server.on('request', (req: IncomingMessage) => {
    const socket = req.socket as Socket & { [lingering]?: true };
    if (socket[lingering]) return;
    socket[lingering] = true;
    socket.destroySoon = () => lingerThenDestroy(socket, lingerMs);
  });
}

function lingerThenDestroy(socket: Socket, lingerMs: number): void {
  if (socket.destroyed) return;
  const destroy = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(destroy, lingerMs);
  timer.unref();
  socket.once('end', destroy);
  socket.once('close', () => clearTimeout(timer));
  // The HTTP parser keeps consuming what arrives, and the finished request discards it.
  if (socket.writable) socket.end();
  socket.resume();
}
