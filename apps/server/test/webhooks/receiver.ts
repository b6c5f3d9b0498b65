import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

/**
 * A webhook receiver on 127.0.0.1 (tests send traffic to loopback only): records every request and
 * answers what `answer` says (by default 200 at once).
 */
export async function startReceiver() {
  const received: Received[] = [];
  const state = {
    answer: (res: ServerResponse, _request: Received): void => {
      res.writeHead(200).end('ok');
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(request);
      state.answer(res, request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    received,
    port,
    url: `http://127.0.0.1:${port}`,
    set answer(answer: (res: ServerResponse, request: Received) => void) {
      state.answer = answer;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
