import {
  ACCOUNTS,
  API_KEYS,
  BLOB_INTENTS,
  type Dialect,
  FILES,
  INSTANCES,
  PROJECTS,
  REVISIONS,
  TRASH,
  tableSql,
} from '@mdstore/sql';

/**
 * SQLite's side of the shared column description: booleans are stored as 0/1 (STRICT INTEGER), BLOBs
 * come back as Buffers (which are Uint8Arrays), integers as numbers.
 */
export const SQLITE_DIALECT: Dialect = {
  placeholder: () => '?',
  encode: (type, value) => (type === 'boolean' ? (value ? 1 : 0) : value),
  decode: (type, value) => (type === 'boolean' ? value === 1 : value),
  indexOf: (haystack, needle) => `instr(${haystack}, ${needle})`,
};

export const accounts = tableSql(ACCOUNTS, SQLITE_DIALECT);
export const apiKeys = tableSql(API_KEYS, SQLITE_DIALECT);
export const projects = tableSql(PROJECTS, SQLITE_DIALECT);
export const files = tableSql(FILES, SQLITE_DIALECT);
export const revisions = tableSql(REVISIONS, SQLITE_DIALECT);
export const blobIntents = tableSql(BLOB_INTENTS, SQLITE_DIALECT);
export const instances = tableSql(INSTANCES, SQLITE_DIALECT);
export const trash = tableSql(TRASH, SQLITE_DIALECT);

export type Row = Record<string, unknown>;
