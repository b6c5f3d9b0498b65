import { describe, expect } from 'vitest';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Share links (extensions §11): `POST/GET/DELETE /api/projects/{id}/shares` and the pages at
 * `/s/{token}`, on whichever adapter set runs the suite (see test/matrix).
 */

const test = serverTest();

const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:";

interface ShareJson {
  id: string;
  url: string;
  filename: string | null;
  prefix: string | null;
  expires_date: string;
  created_date: string;
}

async function scene(h: HttpHarness) {
  const { apiKey } = await h.account();
  const { id: projectId } = await h.createProject(apiKey, 'Shares');
  const shares = `/api/projects/${projectId}/shares`;
  const upload = (filename: string, content: string) => h.uploadFile(apiKey, projectId, filename, content);
  const create = (body: unknown, key = apiKey) => h.json(shares, 'POST', key, body);
  const share = async (body: unknown): Promise<ShareJson & { path: string }> => {
    const response = await create(body);
    expect(response.status).toBe(201);
    const json = (await response.json()) as ShareJson;
    return { ...json, path: new URL(json.url).pathname };
  };
  const key = async (role: string) => {
    const created = await h.json('/api/keys', 'POST', apiKey, { name: role, role });
    return ((await created.json()) as { api_key: string }).api_key;
  };
  return { apiKey, projectId, shares, upload, create, share, key };
}

describe('creating, listing and revoking share links', () => {
  test('201 with a link of 128 random bits or more, 7 days by default; the list shows no token', async (h) => {
    const s = await scene(h);
    await s.upload('docs/guide.md', '# Guide\n');
    const response = await s.create({ filename: 'docs/guide.md' });
    expect(response.status).toBe(201);
    const created = (await response.json()) as ShareJson;
    expect(Object.keys(created).sort()).toEqual([
      'created_date',
      'expires_date',
      'filename',
      'id',
      'prefix',
      'url',
    ]);
    expect(created.filename).toBe('docs/guide.md');
    expect(created.prefix).toBeNull();
    expect(Date.parse(created.expires_date) - Date.parse(created.created_date)).toBe(604_800_000);
    const url = new URL(created.url);
    expect(url.origin).toBe(h.url);
    const token = url.pathname.replace(/^\/s\//, '');
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(token.length * 6).toBeGreaterThanOrEqual(128 + 4 * 6); // its prefix aside
    const list = await h.fetch(s.shares, { key: s.apiKey });
    expect(list.status).toBe(200);
    const listed = (await list.json()) as { shares: ShareJson[] };
    const { url: _url, ...withoutUrl } = created;
    expect(listed.shares).toEqual([withoutUrl]);
    expect(JSON.stringify(listed)).not.toContain(token);
  });

  test('422 for a body that is not exactly one of filename and prefix, or an expiry out of bounds', async (h) => {
    const s = await scene(h);
    await s.upload('a.md', '# A\n');
    const loc = async (body: unknown) => {
      const response = await s.create(body);
      expect(response.status).toBe(422);
      return ((await response.json()) as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc;
    };
    expect(await loc({})).toEqual(['body']);
    expect(await loc({ filename: 'a.md', prefix: 'docs/' })).toEqual(['body']);
    expect(await loc({ prefix: 'docs' })).toEqual(['body', 'prefix']);
    expect(await loc({ filename: 'a.md', expires_in_seconds: 59 })).toEqual(['body', 'expires_in_seconds']);
    expect(await loc({ filename: 'a.md', expires_in_seconds: 2_592_001 })).toEqual([
      'body',
      'expires_in_seconds',
    ]);
    expect(await loc({ filename: 'a.md', expires_in_seconds: 60.5 })).toEqual(['body', 'expires_in_seconds']);
    const bounds = await s.share({ filename: 'a.md', expires_in_seconds: 2_592_000 });
    expect(Date.parse(bounds.expires_date) - Date.parse(bounds.created_date)).toBe(2_592_000_000);
    const missing = await s.create({ filename: 'none.md' });
    expect(missing.status).toBe(404);
  });

  test('admin keys only: a write key may not create, a read key may not list or revoke', async (h) => {
    const s = await scene(h);
    await s.upload('a.md', '# A\n');
    const created = await s.share({ filename: 'a.md' });
    const writer = await s.key('write');
    const reader = await s.key('read');
    expect((await s.create({ filename: 'a.md' }, writer)).status).toBe(403);
    expect((await h.fetch(s.shares, { key: reader })).status).toBe(403);
    expect((await h.fetch(`${s.shares}/${created.id}`, { method: 'DELETE', key: writer })).status).toBe(403);
    expect((await h.fetch(created.path)).status).toBe(200);
  });

  test('DELETE: 204, the link is 404 at once, gone from the list; again is 404', async (h) => {
    const s = await scene(h);
    await s.upload('a.md', '# A\n');
    const created = await s.share({ filename: 'a.md' });
    expect((await h.fetch(created.path)).status).toBe(200);
    const revoked = await h.fetch(`${s.shares}/${created.id}`, { method: 'DELETE', key: s.apiKey });
    expect(revoked.status).toBe(204);
    const after = await h.fetch(created.path);
    expect(after.status).toBe(404);
    expect(await after.json()).toEqual({ detail: 'Share not found' });
    expect((await h.fetch(`${created.path}?raw=1`)).status).toBe(404);
    expect(
      ((await (await h.fetch(s.shares, { key: s.apiKey })).json()) as { shares: unknown[] }).shares,
    ).toEqual([]);
    expect((await h.fetch(`${s.shares}/${created.id}`, { method: 'DELETE', key: s.apiKey })).status).toBe(
      404,
    );
    expect((await h.fetch(`${s.shares}/not-a-uuid`, { method: 'DELETE', key: s.apiKey })).status).toBe(422);
  });

  test('every share operation is audited, never with the token', async (h) => {
    const s = await scene(h);
    await s.upload('a.md', '# A\n');
    const created = await s.share({ filename: 'a.md' });
    await h.fetch(s.shares, { key: s.apiKey });
    await h.fetch(`${s.shares}/${created.id}`, { method: 'DELETE', key: s.apiKey });
    await h.audit.flush();
    const response = await h.fetch('/api/audit', { key: s.apiKey });
    const text = await response.text();
    const actions = (JSON.parse(text) as { entries: Array<{ action: string; status: number }> }).entries.map(
      (entry) => `${entry.action} ${entry.status}`,
    );
    expect(actions).toEqual(
      expect.arrayContaining([
        'POST /api/projects/:project_id/shares 201',
        'GET /api/projects/:project_id/shares 200',
        'DELETE /api/projects/:project_id/shares/:share_id 204',
      ]),
    );
    expect(text).not.toContain(created.path.slice(3));
  });
});

describe('GET /s/{token}', () => {
  test('a standalone page of the file, sanitised, with its CSP, noindex and a stylesheet of the server', async (h) => {
    const s = await scene(h);
    await s.upload(
      'notes/day.md',
      '---\nsecret: front\n---\n# Day <script>x()</script>\n\n[next](other.md) [top](#day)\n',
    );
    const created = await s.share({ filename: 'notes/day.md' });
    const response = await h.fetch(created.path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(response.headers.get('x-robots-tag')).toBe('noindex');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const page = await response.text();
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('<title>day.md</title>');
    expect(page).toContain('<link rel="stylesheet" href="/share-assets/share.css">');
    // The heading's text is what the parse gives (the script's text too); the sanitiser drops the script.
    expect(page).toContain('<h1 id="day-x">Day </h1>');
    expect(page).toContain('<a>next</a> <a href="#day">top</a>');
    expect(page).not.toContain('secret');
    expect(page).not.toContain('<script');
    const css = await h.fetch('/share-assets/share.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await css.text()).toContain('@media print');
  });

  test('?raw=1: the bytes with the download headers, conditional on the ETag', async (h) => {
    const s = await scene(h);
    const content = '# Raw\n\nbytes\n';
    const uploaded = await s.upload('raw.md', content);
    const created = await s.share({ filename: 'raw.md' });
    const response = await h.fetch(`${created.path}?raw=1`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(content);
    expect(response.headers.get('etag')).toBe(uploaded.etag);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="raw.md"/);
    const again = await h.fetch(`${created.path}?raw=1`, {
      headers: { 'If-None-Match': String(uploaded.etag) },
    });
    expect(again.status).toBe(304);
    const page = await h.fetch(created.path, { headers: { 'If-None-Match': String(uploaded.etag) } });
    expect(page.status).toBe(304);
  });

  test('a folder share: an index of its files, each at /s/{token}/{filename}; nothing outside it', async (h) => {
    const s = await scene(h);
    await s.upload('docs/a.md', '# A\n\n[b](sub/b.md#x) [out](../top.md)\n');
    await s.upload('docs/sub/b.md', '# B\n');
    await s.upload('top.md', '# Top\n');
    await s.upload('docsx/c.md', '# C\n');
    const created = await s.share({ prefix: 'docs/' });
    expect(created.prefix).toBe('docs/');
    expect(created.filename).toBeNull();
    const index = await h.fetch(created.path);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-security-policy')).toBe(PAGE_CSP);
    const html = await index.text();
    expect(html).toContain(`<a href="${created.path}/docs/a.md">a.md</a>`);
    expect(html).toContain(`<a href="${created.path}/docs/sub/b.md">sub/b.md</a>`);
    expect(html).not.toContain('top.md');
    expect(html).not.toContain('docsx');
    const a = await h.fetch(`${created.path}/docs/a.md`);
    expect(a.status).toBe(200);
    expect(await a.text()).toContain(`<a href="${created.path}/docs/sub/b.md#x">b</a> <a>out</a>`);
    expect((await h.fetch(`${created.path}/docs/sub/b.md?raw=1`)).status).toBe(200);
    for (const outside of [
      'top.md',
      'docsx/c.md',
      'docs/none.md',
      'docs%2F..%2Ftop.md',
      'docs/sub%2F..%2F..%2Ftop.md',
    ]) {
      const response = await h.fetch(`${created.path}/${outside}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ detail: 'Share not found' });
    }
  });

  test('a one-file share opens that file only', async (h) => {
    const s = await scene(h);
    await s.upload('a.md', '# A\n');
    await s.upload('b.md', '# B\n');
    const created = await s.share({ filename: 'a.md' });
    expect((await h.fetch(`${created.path}/a.md`)).status).toBe(200);
    expect((await h.fetch(`${created.path}/b.md`)).status).toBe(404);
  });

  test('an unknown or expired token is 404; the token never reaches the log', async (h) => {
    const s = await scene(h);
    await s.upload('a.md', '# A\n');
    const created = await s.share({ filename: 'a.md', expires_in_seconds: 60 });
    expect((await h.fetch('/s/mds_unknown')).status).toBe(404);
    expect((await h.fetch(created.path)).status).toBe(200);
    h.clock.advance(60_001);
    expect((await h.fetch(created.path)).status).toBe(404);
    expect(
      ((await (await h.fetch(s.shares, { key: s.apiKey })).json()) as { shares: unknown[] }).shares,
    ).toEqual([]);
    const token = created.path.slice(3);
    const logged = JSON.stringify(h.logs);
    expect(logged).toContain('/s/[share-token]');
    expect(logged).not.toContain(token);
  });

  test('a share never outlives its creating key: capped at its expiry, 404 once it is revoked (issue 34, finding 10)', async (h) => {
    const s = await scene(h);
    await s.upload('a.md', '# A\n');
    const madeBy = async (expires_date?: string) => {
      const created = await h.json('/api/keys', 'POST', s.apiKey, {
        name: 'sharer',
        role: 'admin',
        ...(expires_date && { expires_date }),
      });
      return (await created.json()) as { id: string; api_key: string };
    };
    // A key expiring in 30 s asks for 30 days: the link expires with the key.
    const expiresAt = h.clock.now() + 30_000;
    const brief = await madeBy(new Date(expiresAt).toISOString());
    const capped = await s.create({ filename: 'a.md', expires_in_seconds: 30 * 86_400 }, brief.api_key);
    expect(capped.status).toBe(201);
    const cappedShare = (await capped.json()) as ShareJson;
    expect(Date.parse(cappedShare.expires_date)).toBe(expiresAt);
    const cappedPath = new URL(cappedShare.url).pathname;
    expect((await h.fetch(cappedPath)).status).toBe(200);
    // A share made by a key revoked since answers as a revoked share, and leaves the list.
    const revokedLater = await madeBy();
    const made = await s.create({ filename: 'a.md' }, revokedLater.api_key);
    const madeShare = (await made.json()) as ShareJson;
    const path = new URL(madeShare.url).pathname;
    expect((await h.fetch(path)).status).toBe(200);
    const revoked = await h.fetch(`/api/keys/${revokedLater.id}`, { method: 'DELETE', key: s.apiKey });
    expect(revoked.status).toBe(204);
    const after = await h.fetch(path);
    expect([after.status, await after.json()]).toEqual([404, { detail: 'Share not found' }]);
    expect((await h.fetch(`${path}?raw=1`)).status).toBe(404);
    const listed = (await (await h.fetch(s.shares, { key: s.apiKey })).json()) as { shares: ShareJson[] };
    expect(listed.shares.map((share) => share.id)).toEqual([cappedShare.id]);
    h.clock.advance(30_001);
    expect((await h.fetch(cappedPath)).status).toBe(404);
  });

  test('a project deleted: its links are 404', async (h) => {
    const s = await scene(h);
    await s.upload('a.md', '# A\n');
    const created = await s.share({ filename: 'a.md' });
    expect((await h.fetch(`/api/projects/${s.projectId}`, { method: 'DELETE', key: s.apiKey })).ok).toBe(
      true,
    );
    expect((await h.fetch(created.path)).status).toBe(404);
  });

  test('other methods are 405', async (h) => {
    const s = await scene(h);
    await s.upload('a.md', '# A\n');
    const created = await s.share({ filename: 'a.md' });
    const response = await h.fetch(created.path, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('GET /s/{token}/a/{path}: the images a shared note shows (extensions §12)', () => {
  const PNG = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  );
  const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
  const attach = (h: HttpHarness, key: string, projectId: string, path: string, body: Buffer, type: string) =>
    h.fetch(`/api/projects/${projectId}/attachments/${encodeURIComponent(path)}`, {
      method: 'PUT',
      key,
      headers: { 'Content-Type': type },
      body,
    });

  test('what the note embeds or links is served under the token, with its safe headers; nothing else', async (h) => {
    const s = await scene(h);
    await s.upload('notes/a.md', '# A\n\n![[cat.png]] ![[evil.svg]] [report](../files/q3.pdf)\n');
    for (const [path, body, type] of [
      ['cat.png', PNG, 'image/png'],
      ['evil.svg', SVG, 'image/svg+xml'],
      ['files/q3.pdf', Buffer.from('%PDF-1.4\n%%EOF\n'), 'application/pdf'],
      ['secret.png', PNG, 'image/png'],
    ] as const) {
      expect((await attach(h, s.apiKey, s.projectId, path, body, type)).status).toBe(201);
    }
    // Another project of the account, whose note embeds its own image.
    const { id: otherId } = await h.createProject(s.apiKey, 'Other');
    await h.uploadFile(s.apiKey, otherId, 'b.md', '![[other.png]]\n');
    expect((await attach(h, s.apiKey, otherId, 'other.png', PNG, 'image/png')).status).toBe(201);
    const created = await s.share({ filename: 'notes/a.md' });
    const page = await (await h.fetch(created.path)).text();
    expect(page).toContain(
      `<img alt="cat.png" src="${created.path}/a/cat.png" /> <img alt="evil.svg" src="${created.path}/a/evil.svg" />`,
    );
    expect(page).toContain(`<a href="${created.path}/a/files/q3.pdf">report</a>`);
    const cat = await h.fetch(`${created.path}/a/cat.png`);
    expect(cat.status).toBe(200);
    expect(Buffer.from(await cat.arrayBuffer())).toEqual(PNG);
    expect(cat.headers.get('content-type')).toBe('image/png');
    expect(cat.headers.get('x-content-type-options')).toBe('nosniff');
    expect(cat.headers.get('referrer-policy')).toBe('no-referrer');
    const svg = await h.fetch(`${created.path}/a/evil.svg`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
    expect((await h.fetch(`${created.path}/a/files/q3.pdf`)).status).toBe(200);
    for (const path of ['secret.png', 'other.png', 'none.png', 'files%2F..%2Fsecret.png']) {
      const response = await h.fetch(`${created.path}/a/${path}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ detail: 'Share not found' });
    }
    // The other project's note is not shared: its image is not either.
    expect((await h.fetch(`${created.path}/a/other.png?from=b.md`)).status).toBe(404);
    await h.fetch(`${s.shares}/${created.id}`, { method: 'DELETE', key: s.apiKey });
    expect((await h.fetch(`${created.path}/a/cat.png`)).status).toBe(404);
  });

  test('a folder share: the note is named by ?from= (its page’s images do); a/… ending in .md is a file', async (h) => {
    const s = await scene(h);
    await s.upload('a/note.md', '![[pics/cat.png|a cat]]\n');
    await s.upload('a/plain.md', '# Plain\n');
    expect((await attach(h, s.apiKey, s.projectId, 'pics/cat.png', PNG, 'image/png')).status).toBe(201);
    const created = await s.share({ prefix: 'a/' });
    const src = `${created.path}/a/pics/cat.png?from=a%2Fnote.md`;
    expect(await (await h.fetch(`${created.path}/a/note.md`)).text()).toContain(
      `<img alt="a cat" src="${src}" />`,
    );
    expect((await h.fetch(src)).status).toBe(200);
    expect((await h.fetch(`${created.path}/a/pics/cat.png`)).status).toBe(404);
    expect((await h.fetch(`${created.path}/a/pics/cat.png?from=a%2Fplain.md`)).status).toBe(404);
    expect((await h.fetch(`${created.path}/a/plain.md`)).status).toBe(200);
  });

  test('an image named by its name alone is served while that name is one attachment’s', async (h) => {
    const s = await scene(h);
    await s.upload('notes/n.md', '![[cat.png]]\n');
    expect((await attach(h, s.apiKey, s.projectId, 'pics/cat.png', PNG, 'image/png')).status).toBe(201);
    const created = await s.share({ filename: 'notes/n.md' });
    expect(await (await h.fetch(created.path)).text()).toContain(`src="${created.path}/a/pics/cat.png"`);
    expect((await h.fetch(`${created.path}/a/pics/cat.png`)).status).toBe(200);
    // A second `cat.png`: the name is ambiguous, the note shows neither, and neither is served.
    expect((await attach(h, s.apiKey, s.projectId, 'old/cat.png', PNG, 'image/png')).status).toBe(201);
    expect(await (await h.fetch(created.path)).text()).toContain('<span class="broken-link">');
    expect((await h.fetch(`${created.path}/a/pics/cat.png`)).status).toBe(404);
    expect((await h.fetch(`${created.path}/a/old/cat.png`)).status).toBe(404);
  });
});

describe('the share pages’ limit per client address', () => {
  serverTest({ settings: { shareRateLimit: 3 } })(
    'past MDSTORE_SHARE_RATE_LIMIT a minute: 429 with Retry-After, unknown tokens counted too',
    async (h) => {
      const s = await scene(h);
      await s.upload('a.md', '# A\n');
      const created = await s.share({ filename: 'a.md' });
      expect((await h.fetch('/s/guess')).status).toBe(404);
      expect((await h.fetch(created.path)).status).toBe(200);
      expect((await h.fetch(`${created.path}?raw=1`)).status).toBe(200);
      const refused = await h.fetch(created.path);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // The API is not counted against it.
      expect((await h.fetch(s.shares, { key: s.apiKey })).status).toBe(200);
      h.clock.advance(60_000);
      expect((await h.fetch(created.path)).status).toBe(200);
    },
  );
});
