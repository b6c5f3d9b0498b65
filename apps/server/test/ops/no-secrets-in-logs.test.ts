import { randomBytes } from 'node:crypto';
import { scriptedFaults, throwing, unavailableError } from '@mdstore/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, uploadBody } from './support.js';

let running: TestServer | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

const marker = (what: string) => `${what}-${randomBytes(8).toString('hex')}`;

/** An error shaped like a PostgreSQL driver error, whose `detail` quotes the row it choked on. */
const driverError = (quoted: string) =>
  Object.assign(new Error('duplicate key value violates unique constraint "files_pkey"'), {
    code: '23505',
    detail: `Key (metadata)=(${quoted}) already exists.`,
    where: `SQL statement with ${quoted}`,
  });

describe('the logs', () => {
  it('never hold API keys, Authorization headers, file contents or metadata values, 500s included', async () => {
    const secrets = {
      metaUpload: marker('META-UPLOAD'),
      metaUpdate: marker('META-UPDATE'),
      metaFailed: marker('META-FAILED'),
      content: marker('CONTENT-UPLOAD'),
      contentUpdate: marker('CONTENT-UPDATE'),
      contentFailed: marker('CONTENT-FAILED'),
      wrongKey: `mds_${randomBytes(32).toString('base64url')}`,
      otherScheme: marker('BASIC-CREDENTIALS'),
      query: marker('QUERY'),
    };
    // Faults that strike only the requests meant to fail (by call number; content updates call
    // `updateFile` too), with errors quoting data.
    const records = scriptedFaults([
      { method: 'tx.updateFile', call: 3, action: throwing(() => driverError(secrets.metaFailed)) },
    ]);
    const blobs = scriptedFaults([
      { method: 'put', call: 3, action: throwing(() => unavailableError('injected: put failed')) },
      { method: 'put', call: 4, action: throwing(() => driverError(secrets.contentFailed), 'after') },
      { method: 'delete', action: throwing(() => unavailableError('injected: delete failed')) },
    ]);
    // No inline contents: every content goes to the blob store, where the faults are.
    const t = await start({ records, blobs, env: { MDSTORE_INLINE_MAX_BYTES: '0' } });
    const { apiKey, projectId } = await t.account();
    const auth = { Authorization: `Bearer ${apiKey}` };
    const files = `${t.url}/api/projects/${projectId}/files`;
    const statuses: number[] = [];
    const send = async (url: string, init: RequestInit) => {
      const response = await fetch(url, init);
      await response.arrayBuffer();
      statuses.push(response.status);
    };

    await send(`${files}?secret=${secrets.query}`, {
      method: 'POST',
      headers: { ...auth, 'X-Request-Id': 'upload-1' },
      body: uploadBody('notes.md', `# Notes\n${secrets.content}\n`, { tag: secrets.metaUpload }),
    });
    await send(`${files}/notes.md`, {
      method: 'PUT',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ metadata: { tag: secrets.metaUpdate } }),
    });
    await send(`${files}/notes.md/content`, {
      method: 'PUT',
      headers: { ...auth, 'Content-Type': 'text/markdown' },
      body: `# Notes\n${secrets.contentUpdate}\n`,
    });
    await send(`${files}/notes.md`, { headers: auth });
    await send(`${files}`, { headers: { Authorization: `Bearer ${secrets.wrongKey}` } });
    await send(`${t.url}/healthz`, { headers: { Authorization: `Basic ${secrets.otherScheme}` } });
    // The failures: a metadata update whose transaction fails with a driver error quoting the value, an
    // upload whose blob write fails, and a content update whose blob write is lost after the fact.
    await send(`${files}/notes.md`, {
      method: 'PUT',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ metadata: { tag: secrets.metaFailed } }),
    });
    await send(files, {
      method: 'POST',
      headers: auth,
      body: uploadBody('failing.md', `# Failing\n${secrets.content}\n`, { tag: secrets.metaUpload }),
    });
    await send(`${files}/notes.md/content`, {
      method: 'PUT',
      headers: { ...auth, 'Content-Type': 'text/markdown' },
      body: `# Notes\n${secrets.contentFailed}\n`,
    });
    expect(statuses).toEqual([201, 200, 200, 200, 401, 200, 500, 500, 500]);
    await expect.poll(() => t.logs().filter((l) => l.msg === 'http request').length).toBe(statuses.length);

    const logs = t.logs();
    // The failures were logged, with what an operator needs.
    const failures = logs.filter((l) => l.msg === 'request failed');
    expect(failures).toHaveLength(3);
    expect(failures.map((l) => (l.error as { code?: string }).code)).toEqual(
      expect.arrayContaining(['23505', 'STORE_UNAVAILABLE']),
    );
    expect(logs.some((l) => String(l.msg).includes('reconciliation will remove it'))).toBe(true);
    const text = t.lines.join('');
    for (const [name, secret] of Object.entries({ ...secrets, apiKey })) {
      expect(text.includes(secret), `${name} appears in the logs`).toBe(false);
    }
    expect(text).not.toMatch(/authorization|bearer /i);
  });
});

describe('a key sent in the URL', () => {
  it('is redacted from the access log and the error log, however it sits in the path', async () => {
    // The download of the file named after the key fails in the blob store: a 500, logged with its path.
    const blobs = scriptedFaults([
      { method: 'get', action: throwing(() => unavailableError('injected: get')) },
    ]);
    const t = await start({ blobs, env: { MDSTORE_INLINE_MAX_BYTES: '0' } });
    const { apiKey, projectId } = await t.account();
    const auth = { Authorization: `Bearer ${apiKey}` };
    const pasted = `mds_${randomBytes(32).toString('base64url')}`;
    const upload = await fetch(`${t.url}/api/projects/${projectId}/files`, {
      method: 'POST',
      headers: auth,
      body: uploadBody(`${pasted}.md`, '# pasted'),
    });
    expect(upload.status).toBe(201);
    const paths = [
      `/api/projects/${apiKey}`,
      `/api/projects/${projectId}/files/${pasted}.md`,
      `/api/projects/${projectId}/files/a${pasted.replace('_', '%5F')}.md/outline`,
      `/${pasted}`,
    ];
    const statuses: number[] = [];
    for (const path of paths) {
      const response = await fetch(`${t.url}${path}`, { headers: auth });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses).toEqual([422, 500, 404, 404]);
    await expect.poll(() => t.logs().filter((l) => l.msg === 'http request').length).toBe(5);

    const logs = t.logs();
    const requests = logs.filter((l) => l.msg === 'http request').slice(1);
    expect(requests.map((l) => l.path)).toEqual([
      '/api/projects/mds_[redacted]',
      `/api/projects/${projectId}/files/mds_[redacted].md`,
      `/api/projects/${projectId}/files/amds_[redacted].md/outline`,
      '/mds_[redacted]',
    ]);
    const failed = logs.filter((l) => l.msg === 'request failed');
    expect(failed.map((l) => l.path)).toEqual([`/api/projects/${projectId}/files/mds_[redacted].md`]);
    const text = t.lines.join('');
    expect(text.includes(apiKey), 'the caller key').toBe(false);
    expect(text.includes(pasted.slice(4)), 'the pasted key').toBe(false);
  });
});

async function start(options: Parameters<typeof startTestServer>[0]) {
  running = await startTestServer(options);
  return running;
}
