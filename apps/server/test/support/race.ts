import http from 'node:http';

/**
 * Concurrent writers that really race at the commit. Each request is sent with `Expect: 100-continue`:
 * the server sends `100 Continue` only once its checks before the body (the preconditions included) have
 * passed, and the body is held back until every writer is either continued or already answered. So all
 * the writers that pass the first If-Match check are past it before any of them can commit: only the
 * check inside the commit transaction can stop them.
 */

export interface RaceRequest {
  /** The server to send it to, when not the one `race` was given (several instances). */
  readonly baseUrl?: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  /** Omitted for a request without a body (a delete): it is sent at once. */
  readonly body?: Buffer;
}

export interface RaceAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

interface Held {
  /** Settles once the server sent `100 Continue` (`true`) or a final answer (`false`). */
  readonly continued: Promise<boolean>;
  readonly answer: Promise<RaceAnswer>;
  release(): void;
}

function held(baseUrl: string, o: RaceRequest): Held {
  const body = o.body;
  const headers: Record<string, string> = { ...o.headers };
  if (body !== undefined) {
    headers['content-length'] = String(body.length);
    headers.expect = '100-continue';
  }
  let settleContinued!: (value: boolean) => void;
  const continued = new Promise<boolean>((resolve) => {
    settleContinued = resolve;
  });
  let settleAnswer!: (answer: RaceAnswer) => void;
  let failAnswer!: (error: unknown) => void;
  const answer = new Promise<RaceAnswer>((resolve, reject) => {
    settleAnswer = resolve;
    failAnswer = reject;
  });
  answer.catch(() => settleContinued(false));
  const send = () => {
    const req = http.request(new URL(o.path, o.baseUrl ?? baseUrl), {
      method: o.method,
      headers,
      agent: false,
    });
    req.on('continue', () => settleContinued(true));
    req.on('response', (res) => {
      settleContinued(false);
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        settleAnswer({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        req.destroy();
      });
      res.on('error', failAnswer);
    });
    req.on('error', failAnswer);
    return req;
  };
  if (body === undefined) {
    // Nothing to hold back: the request itself waits for the release, so that it starts with the others.
    settleContinued(false);
    return { continued, answer, release: () => send().end() };
  }
  const req = send();
  req.flushHeaders();
  let go = false;
  void continued.then((value) => {
    go = value;
  });
  return {
    continued,
    answer,
    // A writer already answered (refused before its body) sends nothing more.
    release: () => {
      if (go && !req.destroyed) req.end(body);
    },
  };
}

export interface RaceOutcome {
  readonly answers: RaceAnswer[];
  /** How many writers passed the checks before the body (were sent `100 Continue`). */
  readonly continued: number;
}

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/** Sends every request at once, holds the bodies until all are past their first checks, then lets go. */
export async function race(baseUrl: string, requests: readonly RaceRequest[]): Promise<RaceOutcome> {
  const writers = requests.map((request) => held(baseUrl, request));
  const continued = await Promise.all(writers.map((writer) => writer.continued));
  // In a random order: whoever reaches the commit first wins, and that must be able to be anyone.
  for (const writer of shuffled(writers)) writer.release();
  const answers = await Promise.all(writers.map((writer) => writer.answer));
  return { answers, continued: continued.filter(Boolean).length };
}

/** The index of the one 2xx answer; throws when there is not exactly one. */
export function soleWinner(answers: readonly RaceAnswer[]): number {
  const winners = answers.flatMap((answer, index) =>
    answer.status >= 200 && answer.status < 300 ? [index] : [],
  );
  if (winners.length !== 1) {
    throw new Error(
      `expected exactly one 2xx, got ${winners.length}: ${answers.map((a) => a.status).join(',')}`,
    );
  }
  return winners[0]!;
}
