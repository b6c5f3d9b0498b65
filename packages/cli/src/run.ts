import { parseArgs } from 'node:util';
import { MdStoreApiError } from '@mdstore/client';
import { exportProject } from './commands/export.js';
import { cat, ls, put, rm } from './commands/files.js';
import { pull, push, sync } from './commands/folders.js';
import { importProject } from './commands/import.js';
import { projectsCreate, projectsList } from './commands/projects.js';
import type { Command, Options, Values } from './commands/types.js';
import { configPath } from './config.js';
import { CommandContext, EXIT, type GlobalFlags, type Io, UsageError, VERSION } from './context.js';
import { describeError } from './errors.js';

const COMMANDS: readonly Command[] = [
  projectsList,
  projectsCreate,
  ls,
  cat,
  put,
  rm,
  push,
  pull,
  sync,
  exportProject,
  importProject,
];

const GLOBAL_OPTIONS: Options = {
  url: { type: 'string' },
  project: { type: 'string', short: 'p' },
  config: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

function help(io: Io): string {
  const lines = COMMANDS.map((c) => `  ${c.usage}\n      ${c.summary}`);
  return `mdstore ${VERSION}: Markdown files on an mdstore server, from the command line

Usage:
${lines.join('\n')}

Connection (first found wins): --url and --project; MDSTORE_URL, MDSTORE_API_KEY, MDSTORE_PROJECT;
the config file ${configPath(io.env, undefined).path}
({"url": "…", "api_key": "…", "project": "…"}, or --config FILE / MDSTORE_CONFIG). The default
URL is http://127.0.0.1:8080 and the default project the account's default project.

Exit codes: 0 done, 1 failed, 2 wrong command line, 3 sync left conflicts to resolve.
Accounts and keys are the server's admin commands: npm run -s mdstore -- accounts …
`;
}

/** The command named by the first words of `argv` (`ls`, `projects list`), and the rest. */
function findCommand(argv: readonly string[]): { command: Command | undefined; rest: string[] } {
  for (const length of [2, 1]) {
    const name = argv.slice(0, length).join(' ');
    const command = COMMANDS.find((c) => c.name === name);
    if (command) return { command, rest: argv.slice(length) };
  }
  return { command: undefined, rest: [...argv] };
}

/** Runs one command line and returns its exit code. Never throws. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  const ctxOf = (flags: GlobalFlags) => new CommandContext(io, flags);
  let ctx = ctxOf({});
  try {
    if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
      io.stdout.write(help(io));
      return argv.length === 0 ? EXIT.usage : EXIT.ok;
    }
    if (argv[0] === '--version' || argv[0] === 'version') {
      io.stdout.write(`${VERSION}\n`);
      return EXIT.ok;
    }
    const { command, rest } = findCommand(argv);
    if (!command) {
      const first = argv[0];
      if (first === 'accounts' || first === 'keys') {
        throw new UsageError(
          `${first} is an admin command of the server: npm run -s mdstore -- ${argv.join(' ')}`,
        );
      }
      throw new UsageError(
        `unknown command ${JSON.stringify(argv.join(' '))}: the command comes first; mdstore help lists them`,
      );
    }
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      io.stdout.write(`usage: ${command.usage}\n${command.summary}\n`);
      return EXIT.ok;
    }
    const [min, max] = command.positionals;
    if (positionals.length < min || positionals.length > max) throw new UsageError(`usage: ${command.usage}`);
    ctx = ctxOf(values as GlobalFlags);
    return await command.run(ctx, positionals, values as Values);
  } catch (error) {
    return report(ctx, error);
  }
}

function report(ctx: CommandContext, error: unknown): number {
  const usage =
    error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  if (ctx.json && !usage) {
    const status = error instanceof MdStoreApiError ? { status: error.status, detail: error.detail } : {};
    ctx.printJson({ error: { message: describeError(error), ...status } });
  }
  ctx.warn(describeError(error));
  return usage ? EXIT.usage : EXIT.failure;
}
