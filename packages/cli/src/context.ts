import type { Readable, Writable } from 'node:stream';
import { createClient, type MdStoreClient } from '@mdstore/client';
import { type Connection, resolveConnection } from './config.js';
import { resolveProjectId } from './project.js';

/** The process around a command, passed in so that tests can run commands in-process. */
export interface Io {
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly stdin: Readable;
  readonly env: NodeJS.ProcessEnv;
  /** Ends a long-running command (`sync --watch`) cleanly; without it, SIGINT or SIGTERM does. */
  readonly signal?: AbortSignal;
}

export const VERSION = '0.1.0';

/** Exit codes: success, a failure, a wrong command line, and a sync that left conflicts to resolve. */
export const EXIT = { ok: 0, failure: 1, usage: 2, conflicts: 3 } as const;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface GlobalFlags {
  readonly url?: string;
  readonly project?: string;
  readonly config?: string;
  readonly json?: boolean;
}

/** What a command works with: the parsed global flags, the connection and a client made on demand. */
export class CommandContext {
  private connection: Connection | undefined;
  private clientInstance: MdStoreClient | undefined;

  constructor(
    readonly io: Io,
    readonly flags: GlobalFlags,
  ) {}

  get json(): boolean {
    return this.flags.json === true;
  }

  async connect(): Promise<Connection> {
    this.connection ??= await resolveConnection(this.io.env, this.flags);
    return this.connection;
  }

  async client(): Promise<MdStoreClient> {
    if (this.clientInstance) return this.clientInstance;
    const connection = await this.connect();
    if (!connection.apiKey) {
      throw new UsageError(
        'no API key: set MDSTORE_API_KEY, or api_key in the config file (mdstore help explains where it is)',
      );
    }
    this.clientInstance = createClient({
      baseUrl: connection.url,
      apiKey: connection.apiKey,
      headers: { 'User-Agent': `mdstore-cli/${VERSION}` },
    });
    return this.clientInstance;
  }

  /** The project of `--project`, `MDSTORE_PROJECT` or the config file, else the default project. */
  async projectId(): Promise<string> {
    const connection = await this.connect();
    return resolveProjectId(await this.client(), connection.project);
  }

  out(text: string): void {
    this.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  printJson(value: unknown): void {
    this.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  warn(text: string): void {
    this.io.stderr.write(`mdstore: ${text}\n`);
  }
}
