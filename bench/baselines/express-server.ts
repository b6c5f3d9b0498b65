// The framework ceiling for metadata operations: bare Express 5 routes that answer with JSON held in
// memory, no authentication, no store. Runs as a child process, like the server under test. The bench
// loads the payloads (copied from mdstore's own answers) with `PUT /__fixtures/<name>` before measuring.
// Prints one JSON line `{"url": ...}` when listening.
import express from 'express';

const fixtures = new Map<string, unknown>();
const app = express();
app.disable('x-powered-by');
app.disable('etag');

app.put('/__fixtures/:name', express.json({ limit: '64mb' }), (req, res) => {
  fixtures.set(req.params.name, req.body);
  res.status(204).end();
});

const fixture = (name: string) => fixtures.get(name) ?? {};

app.get('/api/projects', (_req, res) => {
  res.json(fixture('projects'));
});
app.get('/api/projects/:projectId', (_req, res) => {
  res.json(fixture('project'));
});
app.get('/api/projects/:projectId/files', (_req, res) => {
  res.json(fixture('files'));
});
app.put('/api/projects/:projectId/files/:filename', express.json({ limit: '1mb' }), (req, res) => {
  const body = req.body as { metadata?: unknown };
  res.json({ ...(fixture('metadataUpdate') as object), metadata: body.metadata ?? null });
});

app.post('/api/projects/:projectId/search', express.json({ limit: '1mb' }), (_req, res) => {
  res.json(fixture('search'));
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
