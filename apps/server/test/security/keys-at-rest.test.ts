import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { call, exchange, expectHealthy, head, hostileTest } from '../hostile/support.js';

const test = hostileTest();

describe('API keys at rest and in logs', () => {
  test('key secrets never reach the logs, the database file or its WAL', async (ctx) => {
    const { h, account } = ctx;
    const second = await h.store.apiKeys.create({ account: account.accountId });
    const revoked = await h.store.apiKeys.create({ account: account.accountId });
    await h.store.apiKeys.revoke({ keyId: revoked.keyId });
    const unknown = `${account.apiKey.slice(0, -4)}AAAA`;
    const secrets = [account.apiKey, second.apiKey, revoked.apiKey, unknown];

    const project = `/api/projects/${account.defaultProjectId}`;
    await h.uploadFile(account.apiKey, account.defaultProjectId, 'k.md', '# k', { note: 'n' });
    expect((await call(ctx, project, { key: second.apiKey })).status).toBe(200);
    expect((await call(ctx, project, { key: revoked.apiKey })).status).toBe(401);
    expect((await call(ctx, project, { key: unknown })).status).toBe(401);
    expect((await call(ctx, `${project}/files/missing.md`, { key: account.apiKey })).status).toBe(404);
    // A key put where it does not belong: the query string, a duplicated header, another scheme.
    expect((await call(ctx, `${project}?api_key=${second.apiKey}`)).status).toBe(200);
    const duplicated = await exchange(
      ctx,
      `GET ${project} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n` +
        `Authorization: Bearer ${account.apiKey}\r\nAuthorization: Bearer ${second.apiKey}\r\n\r\n`,
    );
    expect(duplicated.response?.status).toBe(401);
    expect(
      (await exchange(ctx, head(ctx, 'GET', project, {}, `${second.apiKey} extra`))).response?.status,
    ).toBe(401);
    await expectHealthy(ctx);

    const logged = JSON.stringify(h.logs);
    expect(h.logs.length).toBeGreaterThan(5);
    for (const secret of secrets) expect(logged).not.toContain(secret);

    // Every file of the data folder, read while the server still runs (the WAL holds the recent pages).
    const names = await readdir(ctx.dir, { recursive: true });
    expect(names).toEqual(expect.arrayContaining(['mdstore.db', 'mdstore.db-wal']));
    let scanned = 0;
    for (const name of names) {
      const bytes = await readFile(join(ctx.dir, name)).catch(() => undefined);
      if (!bytes) continue;
      scanned += bytes.byteLength;
      for (const secret of secrets) {
        expect(bytes.includes(secret), `${name} holds a key`).toBe(false);
        expect(bytes.includes(Buffer.from(secret, 'utf16le')), `${name} holds a key`).toBe(false);
      }
    }
    // The scan did read the records: the account id is there, in the database or its WAL.
    const dbAndWal = Buffer.concat([
      await readFile(join(ctx.dir, 'mdstore.db')),
      await readFile(join(ctx.dir, 'mdstore.db-wal')),
    ]);
    expect(dbAndWal.includes(account.accountId)).toBe(true);
    expect(scanned).toBeGreaterThan(0);
    // What is stored is a hash that matches the key.
    const stored = await h.adapters.records.findApiKeyById({ keyId: second.keyId });
    expect(stored?.keyHash).toBeTruthy();
    expect(stored?.keyHash).not.toContain(second.apiKey);
  });
});
