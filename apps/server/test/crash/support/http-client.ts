import http from 'node:http';
import { sleep } from './random.js';

export interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  /** The response was cut off after its status line (the server died while sending it). */
  readonly truncated: boolean;
}

export interface RequestOptions {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: Buffer;
  /** Sends the body in this many pieces with `pauseMs` between them, so a kill can land mid-stream. */
  readonly pieces?: number;
  readonly pauseMs?: number;
}

/**
 * One request on its own connection (no keep-alive pool that could hand a dead socket to the next
 * request). Rejects only when no status line arrived: then the request may or may not have happened.
 */
export function request(baseUrl: string, options: RequestOptions): Promise<Reply> {
  const body = options.body ?? Buffer.alloc(0);
  return new Promise<Reply>((resolve, reject) => {
    let status: number | undefined;
    const req = http.request(new URL(options.path, baseUrl), {
      method: options.method,
      headers: { ...options.headers, 'content-length': String(body.length) },
      agent: false,
    });
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      const reply = (truncated: boolean) => ({
        status: status ?? 0,
        headers: res.headers,
        body: Buffer.concat(chunks),
        truncated,
      });
      res.on('end', () => resolve(reply(false)));
      res.on('error', () => resolve(reply(true)));
      res.on('aborted', () => resolve(reply(true)));
    });
    req.on('error', (error) => {
      if (status === undefined) reject(error);
    });
    void writeBody(req, body, options.pieces ?? 1, options.pauseMs ?? 0, () => status !== undefined);
  });
}

async function writeBody(
  req: http.ClientRequest,
  body: Buffer,
  pieces: number,
  pauseMs: number,
  answered: () => boolean,
): Promise<void> {
  const size = Math.ceil(body.length / Math.max(1, pieces));
  for (let offset = 0; offset < body.length; offset += size) {
    if (req.destroyed || answered()) return;
    req.write(body.subarray(offset, offset + size));
    if (offset + size < body.length && pauseMs > 0) await sleep(pauseMs);
  }
  if (!req.destroyed) req.end();
}

export const json = (reply: Reply): unknown => JSON.parse(reply.body.toString('utf8'));

export interface MultipartPart {
  readonly name: string;
  readonly filename?: string;
  readonly contentType?: string;
  readonly data: Buffer;
}

/** A multipart/form-data body; a non-ASCII filename goes in `filename*` (RFC 8187). */
export function multipart(parts: readonly MultipartPart[]): { contentType: string; body: Buffer } {
  const boundary = `crash${Math.random().toString(16).slice(2)}${Date.now().toString(16)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let disposition = `form-data; name="${part.name}"`;
    if (part.filename !== undefined) {
      disposition += /^[\x20-\x7e]*$/.test(part.filename)
        ? `; filename="${part.filename}"`
        : `; filename="file.md"; filename*=UTF-8''${encodeURIComponent(part.filename)}`;
    }
    let head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n`;
    if (part.contentType) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), part.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(chunks) };
}
