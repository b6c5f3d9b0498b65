import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger, loadConfig, type ServerProcess, startServer } from '@mdstore/server';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** A real mdstore server (SQLite + files in a temp folder) on a free loopback port. */
export interface RealServer {
  readonly url: string;
  readonly server: ServerProcess;
  /** A new account: its API key and default project. */
  account(name?: string): Promise<{ apiKey: string; defaultProjectId: string }>;
  stop(): Promise<void>;
}

export async function startRealServer(env: Record<string, string> = {}): Promise<RealServer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mdstore-sdk-'));
  const config = loadConfig({
    MDSTORE_DATA_DIR: dir,
    PORT: '0',
    MDSTORE_RATE_LIMIT_STANDARD: '1000000',
    MDSTORE_LOG_LEVEL: 'silent',
    ...env,
  });
  let server: ServerProcess;
  try {
    server = await startServer({ config, logger: createLogger({ level: 'silent' }), shutdownGraceMs: 1000 });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: server.url,
    server,
    async account(name = `acct-${Math.random().toString(36).slice(2, 10)}`) {
      const created = await server.runtime.store.accounts.create({ name });
      return { apiKey: created.apiKey.apiKey, defaultProjectId: created.defaultProject.id };
    },
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** What `useRealServer` gives a test file: its server, and the account made for the running test. */
export interface RealServerScene {
  readonly server: RealServer;
  readonly account: { readonly apiKey: string; readonly defaultProjectId: string };
}

/**
 * One real server for a test file (started before its tests, stopped after them) and a new account before
 * each test. Call it at the top of the file, before the file's own `beforeEach`: hooks run in the order
 * they are registered, so the account is there when the file's own set-up runs.
 */
export function useRealServer(env: Record<string, string> = {}): RealServerScene {
  let server: RealServer | undefined;
  let account: RealServerScene['account'] | undefined;
  beforeAll(async () => {
    server = await startRealServer(env);
  });
  afterAll(async () => {
    await server?.stop();
  });
  beforeEach(async () => {
    account = await server!.account();
  });
  return {
    get server() {
      if (!server) throw new Error('useRealServer: the server starts in beforeAll');
      return server;
    },
    get account() {
      if (!account) throw new Error('useRealServer: the account is made in beforeEach');
      return account;
    },
  };
}
