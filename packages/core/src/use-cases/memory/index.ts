import { assertRole, inPathScope, loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { type BodyOf, deferred } from '../deferred-body.js';
import {
  changeMemoryFile,
  createMemoryFile,
  deleteMemoryFile,
  failure,
  type MemoryFileTarget,
  type MemoryOutcome,
  readMemoryFile,
  renameMemoryFile,
} from './files.js';
import { deleteFolder, folderExists, renameFolder, viewFolder } from './folders.js';
import { judgeMemoryPath, memoryFilename, memoryFolder } from './paths.js';
import { type MemoryCommand, type MemoryCommandInput, parseMemoryCommand } from './schema.js';
import { insertText, MEMORY_TEXT, strReplaceText, viewFileText } from './text.js';

export { MEMORY_ROOT, memoryPathFilename } from './paths.js';
export { type MemoryCommand, type MemoryCommandInput, MemoryCommandSchema } from './schema.js';

export interface MemoryCommandRequest {
  readonly principal: Principal;
  readonly projectId: string;
  /** The tool call's input (`{"command": …, …}`), or (HTTP) the request body it comes in. */
  readonly body: BodyOf<MemoryCommandInput>;
  readonly signal?: AbortSignal;
}

export interface MemoryCommandResult extends MemoryOutcome {
  /** The stored file (or folder prefix) the command named first, for the audit log. */
  readonly filename: string | null;
  /** Whether the command changes files (every command but `view`). */
  readonly writes: boolean;
}

/**
 * `POST /api/projects/{id}/memory` (extensions §14): one command of Anthropic's memory tool on the
 * project's folder `memories/`. The access rule as every project route (404/403), then the role the
 * command needs: `view` reads (`read`), every other command writes (`write`, else 403); the route itself
 * asks for `read`. Whatever the tool would answer (success or its error) is the result text.
 */
export async function runMemoryCommand(
  ctx: MdStoreContext,
  input: MemoryCommandRequest,
): Promise<MemoryCommandResult> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const body = deferred<unknown>(input.body);
  body.check();
  const command = parseMemoryCommand(await body.read());
  const writes = command.command !== 'view';
  assertRole(input.principal, writes ? 'write' : 'read');
  const firstPath = command.command === 'rename' ? command.old_path : command.path;
  const judged = judgeMemoryPath(firstPath);
  const filename = judged.ok ? memoryFilename(judged.segments) : null;
  const outcome = await run(ctx, { ...input, project }, command);
  return { ...outcome, filename, writes };
}

type Context = Omit<MemoryCommandRequest, 'body'> & { project: MemoryFileTarget['project'] };

async function run(ctx: MdStoreContext, input: Context, command: MemoryCommand): Promise<MemoryOutcome> {
  if (command.command === 'rename') return rename(ctx, input, command.old_path, command.new_path);
  const judged = judgeMemoryPath(command.path);
  if (!judged.ok) return failure(judged.error);
  const { path } = command;
  const root = judged.segments.length === 0;
  const prefix = memoryFolder(judged.segments);
  const target: MemoryFileTarget = { ...input, path, filename: memoryFilename(judged.segments) };
  // Extensions §14: to a key confined to folders, the files outside them do not exist.
  const folders = input.principal.pathPrefixes;
  const reached = inPathScope(input.principal, target.filename);
  const findReached = async () =>
    reached ? ctx.records.findFile({ projectId: input.project.id, filename: target.filename }) : null;
  const isFolder = () => folderExists(ctx, input.project, prefix, folders);
  const notAFileOrMissing = async () =>
    root || (await isFolder()) ? MEMORY_TEXT.notAFile(path) : MEMORY_TEXT.notExist(path);
  switch (command.command) {
    case 'view': {
      if (root) return viewFolder(ctx, input.project, path, prefix, folders);
      const file = await findReached();
      if (file)
        return readMemoryFile(ctx, target, file, (text) => viewFileText(path, text, command.view_range));
      if (await isFolder()) return viewFolder(ctx, input.project, path, prefix, folders);
      return failure(MEMORY_TEXT.notExist(path));
    }
    case 'create':
      // The reference opens the path exclusively: `/memories` itself, or a folder, "already exists".
      if (root || (await isFolder())) return failure(MEMORY_TEXT.alreadyExists(path));
      if (!reached) return failure(MEMORY_TEXT.outsideKey(path));
      return createMemoryFile(ctx, target, command.file_text);
    case 'str_replace':
      if (root) return failure(MEMORY_TEXT.notAFile(path));
      if (!reached) return failure(await notAFileOrMissing());
      return changeMemoryFile(ctx, target, notAFileOrMissing, (text) =>
        strReplaceText(path, text, command.old_str, command.new_str),
      );
    case 'insert':
      if (root) return failure(MEMORY_TEXT.notAFile(path));
      if (!reached) return failure(await notAFileOrMissing());
      return changeMemoryFile(ctx, target, notAFileOrMissing, (text) =>
        insertText(path, text, command.insert_line, command.insert_text),
      );
    case 'delete': {
      if (root) return failure(MEMORY_TEXT.cannotDeleteRoot);
      const file = await findReached();
      if (file) return deleteMemoryFile(ctx, target, async () => MEMORY_TEXT.deleteMissing(path));
      return deleteFolder(ctx, { ...input, path, prefix });
    }
  }
}

async function rename(ctx: MdStoreContext, input: Context, from: string, to: string): Promise<MemoryOutcome> {
  const source = judgeMemoryPath(from);
  if (!source.ok) return failure(source.error);
  const destination = judgeMemoryPath(to);
  if (!destination.ok) return failure(destination.error);
  if (source.segments.length === 0) return failure(MEMORY_TEXT.cannotRenameRoot);
  const toFilename = memoryFilename(destination.segments);
  const toPrefix = memoryFolder(destination.segments);
  const folders = input.principal.pathPrefixes;
  const taken =
    destination.segments.length === 0 ||
    (inPathScope(input.principal, toFilename) &&
      (await ctx.records.findFile({ projectId: input.project.id, filename: toFilename })) !== null) ||
    (await folderExists(ctx, input.project, toPrefix, folders));
  if (taken) return failure(MEMORY_TEXT.destinationExists(to));
  const target: MemoryFileTarget = { ...input, path: from, filename: memoryFilename(source.segments) };
  // Extensions §14: a key confined to folders neither finds nor writes a file outside them.
  const file = inPathScope(input.principal, target.filename)
    ? await ctx.records.findFile({ projectId: input.project.id, filename: target.filename })
    : null;
  if (!inPathScope(input.principal, file ? toFilename : toPrefix)) return failure(MEMORY_TEXT.outsideKey(to));
  if (file) {
    return renameMemoryFile(ctx, target, { path: to, filename: toFilename }, async () =>
      MEMORY_TEXT.renameMissing(from),
    );
  }
  return renameFolder(
    ctx,
    { ...input, path: from, prefix: memoryFolder(source.segments) },
    { path: to, prefix: toPrefix },
  );
}
