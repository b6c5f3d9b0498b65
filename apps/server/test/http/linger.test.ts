import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type RunningHttpServer, startHttpServer } from '../../src/http/server.js';

const silent = { info() {}, warn() {}, error() {} };
const ANSWER = JSON.stringify({ detail: 'Request body too large' });

/** A server that refuses every request at once, with `Connection: close`, never reading the body. */
function refusingServer(): Promise<RunningHttpServer> {
  return startHttpServer({
    app: (_req, res) => {
      res.writeHead(413, {
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(ANSWER)),
        Connection: 'close',
      });
      res.end(ANSWER);
    },
    host: '127.0.0.1',
    port: 0,
    logger: silent,
    shutdownGraceMs: 100,
  });
}

/**
 * Sends a chunked body as fast as the connection takes it until the whole answer has arrived, then
 * stops sending (without closing). Reports what arrived and how the connection ended.
 */
function sendUntilAnswered(port: number) {
  return new Promise<{ text: string; ending: 'end' | 'error'; error?: string }>((resolve) => {
    const socket: Socket = connect({ host: '127.0.0.1', port });
    const received: Buffer[] = [];
    let answered = false;
    let ending: 'end' | 'error' = 'end';
    let error: string | undefined;
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      answered = Buffer.concat(received).toString('utf8').endsWith(ANSWER);
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      ending = 'error';
      error = e.code;
    });
    socket.on('close', () => resolve({ text: Buffer.concat(received).toString('utf8'), ending, error }));
    socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
    const piece = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(0x10000, 0x61), Buffer.from('\r\n')]);
    const pump = () => {
      while (!answered && !socket.destroyed) {
        if (!socket.write(piece)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

describe('closing a connection whose request body is still arriving', () => {
  it('half-closes and reads on, so the client gets the whole answer and a FIN, never a reset', async () => {
    const server = await refusingServer();
    try {
      const port = Number(new URL(server.url).port);
      for (let round = 0; round < 5; round++) {
        const started = performance.now();
        const result = await sendUntilAnswered(port);
        expect(result.text).toMatch(/^HTTP\/1\.1 413 /);
        expect(result.text.endsWith(ANSWER)).toBe(true);
        expect([result.ending, result.error]).toEqual(['end', undefined]);
        // The client stopped sending but never closed: the server gives up lingering after 2 s.
        expect(performance.now() - started).toBeLessThan(4_000);
      }
    } finally {
      await server.close();
    }
  });
});
