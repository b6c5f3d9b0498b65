import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RecordsRepository } from '@mdstore/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AdapterModules,
  createRuntime,
  defaultAdapterModules,
  TOKENS,
} from '../../src/composition/index.js';
import { loadConfig, type ServerConfig } from '../../src/config/index.js';
import { createLogger, type Logger, silentLogger } from '../../src/logger.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mdstore-runtime-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const configFor = (env: Record<string, string> = {}): ServerConfig =>
  loadConfig({ MDSTORE_DATA_DIR: path.join(dir, 'nested', 'data'), ...env });

/** The real adapter modules, recording which were loaded and the order in which things close. */
function recordingModules() {
  const loaded: string[] = [];
  const events: string[] = [];
  const modules: AdapterModules = {
    sqlite: async () => {
      loaded.push('sqlite');
      const real = await defaultAdapterModules.sqlite();
      return {
        openSqliteStore: async (options) => {
          const store = await real.openSqliteStore(options);
          events.push('open database');
          const close = store.close.bind(store);
          const closeRecorded = () => {
            events.push('close database');
            return close();
          };
          return Object.assign(store, { close: closeRecorded });
        },
      };
    },
    postgres: async () => {
      loaded.push('postgres');
      return defaultAdapterModules.postgres();
    },
    fs: async () => {
      loaded.push('fs');
      const real = await defaultAdapterModules.fs();
      return {
        createFsBlobStore: (options) => {
          const blobs = real.createFsBlobStore(options);
          events.push('open blobs');
          const close = blobs.close.bind(blobs);
          const closeRecorded = () => {
            events.push('close blobs');
            return close();
          };
          return { ...blobs, close: closeRecorded };
        },
      };
    },
    s3: async () => {
      loaded.push('s3');
      return defaultAdapterModules.s3();
    },
  };
  return { modules, loaded, events };
}

describe('createRuntime with the default embedded stores', () => {
  it('creates the data folder, and keeps the database and the blobs in it', async () => {
    const config = configFor();
    const runtime = await createRuntime(config, { logger: silentLogger });
    try {
      const created = await runtime.store.accounts.create({ name: 'acme' });
      expect(created.defaultProject.bucketName).toMatch(/^mdstore-/);
      expect((await stat(path.join(config.dataDir, 'mdstore.db'))).isFile()).toBe(true);
      expect(await readdir(path.join(config.dataDir, 'blobs'))).toContain(created.defaultProject.bucketName);
    } finally {
      await runtime.close();
    }
  });

  it('keeps the data when reopened', async () => {
    const config = configFor();
    const first = await createRuntime(config, { logger: silentLogger });
    await first.store.accounts.create({ name: 'acme', tier: 'premium' });
    await first.close();
    const second = await createRuntime(config, { logger: silentLogger });
    try {
      expect((await second.store.accounts.list()).map((a) => [a.name, a.tier])).toEqual([
        ['acme', 'premium'],
      ]);
    } finally {
      await second.close();
    }
  });

  it('passes the configured settings to the store', async () => {
    const config = configFor({
      MDSTORE_MAX_FILE_BYTES: '1234',
      MDSTORE_RATE_LIMIT_STANDARD: '5',
      MDSTORE_RATE_LIMIT_PREMIUM: '50',
      MDSTORE_BUCKET_PREFIX: 'acme-',
      MDSTORE_CONTENT_WORK_BUDGET_MB: '3',
      MDSTORE_CONTENT_WORK_DEADLINE_MS: '2500',
    });
    const runtime = await createRuntime(config, { logger: silentLogger });
    try {
      expect(runtime.store.settings).toMatchObject({
        maxFileBytes: 1234,
        rateLimits: { standard: 5, premium: 50 },
        bucketPrefix: 'acme-',
        // A request waits for room in the content budget as long as a pooled step may run.
        contentBudgetBytes: 3 * 1024 * 1024,
        contentBudgetWaitMs: 2500,
      });
      const created = await runtime.store.accounts.create({ name: 'acme' });
      expect(created.defaultProject.bucketName).toBe(`acme-${created.defaultProject.id}`);
    } finally {
      await runtime.close();
    }
  });

  it('loads only the adapters the configuration names, and closes them in reverse order once', async () => {
    const { modules, loaded, events } = recordingModules();
    const runtime = await createRuntime(configFor(), { logger: silentLogger, adapterModules: modules });
    expect(loaded).toEqual(['sqlite', 'fs']);
    await runtime.close();
    await runtime.close();
    expect(events).toEqual(['open database', 'open blobs', 'close blobs', 'close database']);
  });

  it('registers every part under its token', async () => {
    const runtime = await createRuntime(configFor(), { logger: silentLogger });
    try {
      const { container } = runtime;
      expect(container.resolve(TOKENS.store)).toBe(runtime.store);
      expect(container.resolve(TOKENS.config)).toBe(runtime.config);
      expect(container.resolve<{ scheme: string }>(TOKENS.blobs).scheme).toBe('file');
      for (const token of Object.values(TOKENS)) expect(container.isRegistered(token)).toBe(true);
    } finally {
      await runtime.close();
    }
  });

  it('builds the store from a child container where a test overrides a port; the runtime keeps its own', async () => {
    const seen: string[] = [];
    let real: RecordsRepository | undefined;
    const runtime = await createRuntime(configFor(), {
      logger: silentLogger,
      override: (child) => {
        real = child.resolve<RecordsRepository>(TOKENS.records);
        const inner = real;
        const counting = new Proxy(inner, {
          get: (target, name) => {
            const value = Reflect.get(target, name, target);
            if (typeof value !== 'function') return value;
            return (...args: unknown[]) => {
              seen.push(String(name));
              return value.apply(target, args);
            };
          },
        });
        child.register(TOKENS.records, { useValue: counting });
      },
    });
    try {
      await runtime.store.accounts.create({ name: 'acme' });
      expect(seen).toContain('withTransaction');
      const resolved = runtime.container.resolve<RecordsRepository>(TOKENS.records);
      expect(resolved).not.toBe(real);
      // Everything not overridden comes from the runtime's own registrations.
      expect(runtime.container.resolve(TOKENS.config)).toBe(runtime.config);
      expect(runtime.container.resolve(TOKENS.store)).toBe(runtime.store);
    } finally {
      await runtime.close();
    }
  });

  it('closes what it opened when a later adapter fails, then rethrows', async () => {
    const { modules, events } = recordingModules();
    const failing: AdapterModules = {
      ...modules,
      fs: async () => ({
        createFsBlobStore: () => {
          throw new Error('disk on fire');
        },
      }),
    };
    await expect(
      createRuntime(configFor(), { logger: silentLogger, adapterModules: failing }),
    ).rejects.toThrow('disk on fire');
    expect(events).toEqual(['open database', 'close database']);
  });

  it('logs the core warnings through the logger', async () => {
    const lines: string[] = [];
    const logger: Logger = createLogger({ level: 'warn', stderr: { write: (line) => lines.push(line) } });
    const runtime = await createRuntime(configFor(), { logger });
    try {
      const events = runtime.container.resolve<{ warn(m: string, d: Record<string, unknown>): void }>(
        TOKENS.events,
      );
      events.warn('clean-up failed', { bucket: 'b' });
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', msg: 'clean-up failed', bucket: 'b' });
    } finally {
      await runtime.close();
    }
  });
});

describe('list cursors across instances (MDSTORE_CURSOR_SECRET, else the secret kept in the store)', () => {
  /** A cursor made by one runtime, read by another on the same store. */
  async function crossInstance(env: Record<string, string>, otherEnv: Record<string, string>) {
    const first = await createRuntime(configFor(env), { logger: silentLogger });
    const second = await createRuntime(configFor(otherEnv), { logger: silentLogger });
    try {
      const created = await first.store.accounts.create({ name: `cursor-${Math.random()}` });
      const principal = {
        role: 'admin' as const,
        projectIds: null,
        pathPrefixes: null,
        expiresAt: null,
        accountId: created.account.id,
        tier: created.account.tier,
        keyId: created.apiKey.keyId,
      };
      await first.store.projects.create({ principal, body: { name: 'second' } });
      const page = await first.store.projects.page({ principal, params: { limit: 1 } });
      const next = second.store.projects.page({ principal, params: { limit: 1, cursor: page.nextCursor! } });
      return await next.then(
        (result) => result.projects.length,
        (error: { code?: string }) => error.code,
      );
    } finally {
      await second.close();
      await first.close();
    }
  }

  it("instances sharing the secret read each other's cursors; without one they share the store's (§3)", async () => {
    const secret = { MDSTORE_CURSOR_SECRET: 'k'.repeat(40) };
    expect(await crossInstance(secret, secret)).toBe(1);
    expect(await crossInstance({}, {})).toBe(1);
    expect(await crossInstance(secret, {})).toBe('INVALID_INPUT');
    expect(await crossInstance(secret, { MDSTORE_CURSOR_SECRET: 'j'.repeat(40) })).toBe('INVALID_INPUT');
  });

  it('a short secret stops start-up naming the variable, without echoing the value', () => {
    expect(() => configFor({ MDSTORE_CURSOR_SECRET: 'short-secret' })).toThrow(
      /^MDSTORE_CURSOR_SECRET: must be 32/,
    );
    expect(() => configFor({ MDSTORE_CURSOR_SECRET: 'short-secret' })).not.toThrow(/short-secret/);
  });
});
