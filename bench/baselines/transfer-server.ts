// Two HTTP baselines of the upload and download rows, in one child process (they are never measured at
// the same time):
// - the minimal durable upload server: Express 5 + busboy, the `file` part streamed into a temp file,
//   fsync, rename, fsync of the directory, then a JSON answer; no authentication, no records, no checks;
//   A raw variant (`PUT /upload-raw/<name>`) takes the body itself as the bytes, as an attachment's write;
// - the download ceiling: a bare Express route sending bytes held in memory, with the headers mdstore
//   sent for the same file (loaded with `PUT /__downloads/<name>` before measuring).
// Usage: transfer-server.ts <data dir>. Prints one JSON line `{"url": ...}` when listening.
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import type Busboy from 'busboy';
import express from 'express';

// The busboy mdstore's server uses (1.x): the repository root resolves s3rver's old 0.3 instead.
const serverPackage = fileURLToPath(new URL('../../apps/server/package.json', import.meta.url));
const busboy = createRequire(serverPackage)('busboy') as typeof Busboy;

const dir = process.argv[2];
if (!dir) throw new Error('usage: transfer-server.ts <data dir>');

const downloads = new Map<string, { bytes: Buffer; headers: Record<string, string> }>();
const app = express();
app.disable('x-powered-by');
app.disable('etag');

app.put('/__downloads/:name', express.raw({ type: () => true, limit: '64mb' }), (req, res) => {
  const headers = JSON.parse(String(req.headers['x-fixture-headers'] ?? '{}')) as Record<string, string>;
  downloads.set(req.params.name, { bytes: req.body as Buffer, headers });
  res.status(204).end();
});

app.get('/download/:name', (req, res) => {
  const fixture = downloads.get(req.params.name);
  if (!fixture) {
    res.status(404).json({ detail: 'no such fixture' });
    return;
  }
  res.status(200);
  for (const [name, value] of Object.entries(fixture.headers)) res.setHeader(name, value);
  res.end(fixture.bytes);
});

/** Writes `source` into a new temp file, fsyncs it, renames it to `target` and fsyncs the directory. */
async function writeDurably(source: NodeJS.ReadableStream, target: string): Promise<number> {
  const temp = path.join(dir!, `.incoming-${randomUUID()}`);
  const sink = createWriteStream(temp, { flags: 'wx', flush: true }); // `flush`: fsync before close
  await pipeline(source, sink);
  await rename(temp, target);
  const directory = await open(dir!, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
  return sink.bytesWritten;
}

app.put('/upload-raw/:name', (req, res, next) => {
  writeDurably(req, path.join(dir!, randomUUID())).then(
    (size) => res.status(201).json({ path: req.params.name, size_bytes: size }),
    next,
  );
});

app.post('/upload', (req, res, next) => {
  const parser = busboy({ headers: req.headers, defParamCharset: 'utf8' });
  let metadata: string | undefined;
  let stored: Promise<{ filename: string; size: number }> | undefined;
  parser.on('field', (name, value) => {
    if (name === 'metadata') metadata = value;
  });
  parser.on('file', (name, stream, info) => {
    if (name !== 'file' || stored) {
      stream.resume();
      return;
    }
    const id = randomUUID();
    const writing = writeDurably(stream, path.join(dir!, id)).then((size) => ({
      filename: info.filename ?? id,
      size,
    }));
    writing.catch(() => {}); // handled at 'close'; this keeps an early failure from counting as unhandled
    stored = writing;
  });
  parser.on('error', next);
  parser.on('close', () => {
    if (!stored) {
      res.status(400).json({ detail: 'no file part' });
      return;
    }
    stored.then(
      ({ filename, size }) =>
        res.status(201).json({
          filename,
          size_bytes: size,
          metadata: metadata === undefined ? null : JSON.parse(metadata),
        }),
      next,
    );
  });
  req.pipe(parser);
});

const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
server.keepAliveTimeout = 65_000;

process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
