// The admin CLI entry point.
import { isMdStoreError, type MdStoreError } from '@mdstore/core';
import { silenceAwsSdkNodeNotice } from '../aws-sdk-notice.js';
import { BackupError } from '../backup/create.js';
import { BackupTargetError, isS3Target } from '../backup/location.js';
import { createRuntime, type Runtime } from '../composition/index.js';
import { ConfigError, loadConfig } from '../config/index.js';
import { createLogger } from '../logger.js';
import { runBackupCommand } from './backup.js';
import { isBackupCommand, parseCommand, runCommand, USAGE, UsageError } from './commands.js';

/** Errors caused by what the user asked for; anything else is a failure of the store (exit 2). */
const USER_ERROR_CODES = new Set<MdStoreError['code']>([
  'ACCOUNT_NOT_FOUND',
  'ACCOUNT_NAME_TAKEN',
  'API_KEY_NOT_FOUND',
  'INVALID_INPUT',
  'MALFORMED_INPUT',
]);

const fail = (status: 1 | 2, message: string): number => {
  process.stderr.write(`mdstore: ${message.replace(/[\r\n]+/g, ' ')}\n`);
  return status;
};

/**
 * Parses the command line before touching anything, then opens the same store as the server (same
 * environment) without registering an instance or reconciling, runs one command and closes the store.
 */
async function main(argv: readonly string[]): Promise<number> {
  let command: ReturnType<typeof parseCommand>;
  let runtime: Runtime;
  try {
    command = parseCommand(argv);
    if (command.kind === 'help') {
      process.stdout.write(USAGE);
      return 0;
    }
    if (isBackupCommand(command)) return await backupCommand(command);
    const config = loadConfig(process.env);
    // stderr is for one line on failure: the AWS SDK's Node.js version notice would add a paragraph to
    // every command.
    if (config.blobStore.kind === 's3') silenceAwsSdkNodeNotice();
    // stdout carries the JSON result only: every log line goes to stderr.
    const logger = createLogger({ level: 'warn', stdout: process.stderr, stderr: process.stderr });
    runtime = await createRuntime(config, { logger });
  } catch (error) {
    if (error instanceof UsageError) return fail(1, error.message);
    if (error instanceof ConfigError) return fail(1, `invalid configuration: ${error.message}`);
    return fail(2, `cannot open the store: ${describe(error)}`);
  }
  try {
    const result = await runCommand(runtime.store, command);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (isMdStoreError(error) && USER_ERROR_CODES.has(error.code)) return fail(1, error.message);
    return fail(2, describe(error));
  } finally {
    await runtime.close();
  }
}

/**
 * The backup commands (extensions §16): exit 1 for a usage or configuration error and for a backup that
 * is not sound (each problem on its own line of stderr), 2 when the store fails.
 */
async function backupCommand(command: Parameters<typeof runBackupCommand>[0]): Promise<number> {
  try {
    const outcome = await runBackupCommand(command, () => {
      const config = loadConfig(process.env);
      if (
        config.blobStore.kind === 's3' ||
        isS3Target(command.kind === 'backup create' ? command.to : command.path)
      )
        silenceAwsSdkNodeNotice();
      return config;
    });
    process.stdout.write(`${JSON.stringify(outcome.result, null, 2)}\n`);
    for (const problem of outcome.problems) process.stderr.write(`mdstore: ${problem}\n`);
    return outcome.problems.length > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof ConfigError) return fail(1, `invalid configuration: ${error.message}`);
    if (error instanceof BackupError || error instanceof BackupTargetError) return fail(1, error.message);
    return fail(2, describe(error));
  }
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.exitCode = fail(2, describe(error));
  },
);
