import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger, loadConfig, type ServerProcess, startServer } from '@mdstore/server';

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
