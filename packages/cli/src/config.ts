import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

/** Where the command line finds its server, key and project. */
export interface Connection {
  readonly url: string;
  readonly apiKey: string | undefined;
  /** A project id or name; the account's default project when unset. */
  readonly project: string | undefined;
  /** The config file that was read, if any. */
  readonly configFile: string | undefined;
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** `--config`, else `MDSTORE_CONFIG`, else `$XDG_CONFIG_HOME/mdstore/config.json` (`~/.config/…`). */
export function configPath(
  env: NodeJS.ProcessEnv,
  flag: string | undefined,
): { path: string; explicit: boolean } {
  const explicit = flag ?? env.MDSTORE_CONFIG;
  if (explicit) return { path: explicit, explicit: true };
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || homedir(), '.config');
  return { path: path.join(base, 'mdstore', 'config.json'), explicit: false };
}

interface ConfigFile {
  url?: string;
  api_key?: string;
  project?: string;
}

async function readConfigFile(file: string, explicit: boolean): Promise<ConfigFile | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !explicit) return undefined;
    throw new ConfigError(`cannot read the config file ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`the config file ${file} is not valid JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`the config file ${file} must hold a JSON object`);
  }
  const config = parsed as Record<string, unknown>;
  for (const key of Object.keys(config)) {
    if (!['url', 'api_key', 'project'].includes(key)) {
      throw new ConfigError(
        `the config file ${file} has an unknown key ${JSON.stringify(key)} (url, api_key, project)`,
      );
    }
    if (typeof config[key] !== 'string') throw new ConfigError(`${key} in ${file} must be a string`);
  }
  return config as ConfigFile;
}

/**
 * The connection, each value from the first place that has it: the command's flags, the environment
 * (`MDSTORE_URL`, `MDSTORE_API_KEY`, `MDSTORE_PROJECT`), the config file, the default. The key is
 * never taken from a flag: command lines are visible to every user of the machine.
 */
export async function resolveConnection(
  env: NodeJS.ProcessEnv,
  flags: { url?: string; project?: string; config?: string },
): Promise<Connection> {
  const where = configPath(env, flags.config);
  const file = await readConfigFile(where.path, where.explicit);
  const url = flags.url ?? env.MDSTORE_URL ?? file?.url ?? DEFAULT_URL;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error();
  } catch {
    throw new ConfigError(`the server URL must be http(s)://…, not ${JSON.stringify(url)}`);
  }
  return {
    url,
    apiKey: env.MDSTORE_API_KEY || file?.api_key,
    project: flags.project ?? (env.MDSTORE_PROJECT || undefined) ?? file?.project,
    configFile: file ? where.path : undefined,
  };
}
