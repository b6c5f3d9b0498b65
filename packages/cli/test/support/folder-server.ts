import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface StoredFile {
  content: Buffer;
  etag: string;
  revision: number;
}

/**
 * A stand-in for a server that already accepts folders in filenames (extensions §1), answering the few
 * operations a sync uses, in the same shapes: the real server refuses `/` until that lands. It records
 * the raw request paths so a test can see how names travel.
 */
export async function folderServer(projectId: string) {
  const files = new Map<string, StoredFile>();
  const paths: string[] = [];
  const sha = (b: Buffer) => createHash('sha256').update(b).digest();
  const view = (name: string, f: StoredFile) => ({
    filename: name,
    project_id: projectId,
    size_bytes: f.content.length,
    content_type: 'text/markdown',
    metadata: null,
    storage_path: `file://b/${name}`,
    created_date: new Date(0).toISOString(),
    updated_date: new Date(0).toISOString(),
    etag: f.etag,
    revision: f.revision,
    sha256: sha(f.content).toString('hex'),
  });
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const write = (name: string, content: Buffer) => {
    const revision = (files.get(name)?.revision ?? 0) + 1;
    const file = { content, etag: `"${randomUUID()}"`, revision };
    files.set(name, file);
    return file;
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const raw = (req.url ?? '').split('?')[0]!;
    paths.push(`${req.method} ${raw}`);
    const prefix = `/api/projects/${projectId}/files`;
    if (raw === prefix && req.method === 'GET') {
      const list = [...files].sort(([a], [b]) => (a < b ? -1 : 1)).map(([n, f]) => view(n, f));
      return json(res, 200, { files: list, total_count: list.length, total_size_bytes: 0 });
    }
    if (raw === prefix && req.method === 'POST') {
      const text = body.toString('latin1');
      const name = decodeURIComponent(/filename\*=UTF-8''([^\r\n;]+)/.exec(text)![1]!);
      const start = text.indexOf('\r\n\r\n', text.indexOf('filename*=')) + 4;
      const end = text.lastIndexOf('\r\n--');
      if (files.has(name)) return json(res, 409, { detail: `File '${name}' already exists` });
      return json(res, 201, view(name, write(name, body.subarray(start, end))));
    }
    const match = new RegExp(`^${prefix}/([^/]+)(/content)?$`).exec(raw);
    if (!match) return json(res, 404, { detail: 'Not Found' });
    const name = decodeURIComponent(match[1]!);
    const file = files.get(name);
    if (!file) return json(res, 404, { detail: 'File not found' });
    const ifMatch = req.headers['if-match'];
    if (ifMatch !== undefined && ifMatch !== file.etag)
      return json(res, 412, { detail: 'Precondition failed' });
    if (match[2] && req.method === 'PUT') {
      const { metadata, ...rest } = view(name, write(name, body));
      return json(res, 200, { ...rest, metadata });
    }
    if (req.method === 'DELETE') {
      files.delete(name);
      res.writeHead(204).end();
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'text/markdown; charset=utf-8',
      ETag: file.etag,
      'Repr-Digest': `sha-256=:${sha(file.content).toString('base64')}:`,
    });
    res.end(req.method === 'HEAD' ? undefined : file.content);
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    files,
    paths,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
