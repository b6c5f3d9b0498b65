import { budgetOf, type OperationBudget } from '../http/api/budgets.js';

/**
 * Each MCP tool calls the use case of one HTTP operation, with the same limits: its row of the budget
 * table is that operation's (`http/api/budgets.ts`). A tool without an entry here cannot be served
 * (`createMcpServer` checks), so a new tool cannot ship without its bound.
 */
export const TOOL_OPERATIONS: Readonly<Record<string, string>> = {
  list_projects: 'listProjects',
  list_files: 'listFiles',
  read_file: 'downloadFile',
  outline: 'getOutline',
  links: 'getFileLinks',
  broken_links: 'listBrokenLinks',
  create_file: 'uploadFile',
  edit_file: 'editFile',
  write_file: 'updateFileContent',
  set_metadata: 'updateFileMetadata',
  search: 'searchProject',
  delete_file: 'deleteFile',
  list_revisions: 'listRevisions',
  read_revision: 'downloadRevision',
  restore_revision: 'restoreRevision',
  move_file: 'moveFile',
  recent_changes: 'listChanges',
  apply_changeset: 'applyChangeset',
  memory: 'runMemoryCommand',
  propose_changes: 'createDraft',
  list_drafts: 'listDrafts',
  read_draft: 'diffDraft',
  publish_draft: 'publishDraft',
  list_attachments: 'listAttachments',
  read_attachment: 'readAttachment',
  write_attachment: 'writeAttachment',
};

/** The budget row a tool shares, or an error naming the tool. */
export function toolBudget(tool: string): { readonly operation: string; readonly budget: OperationBudget } {
  const operation = TOOL_OPERATIONS[tool];
  if (!operation)
    throw new Error(`MCP tool ${tool} names no operation in the budget table (mcp/tool-budgets.ts)`);
  return { operation, budget: budgetOf(operation) };
}
