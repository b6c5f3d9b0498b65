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
 * Postgres's side of the shared column description: native booleans, bytea as Buffers (Uint8Arrays),
 * int8 parsed to numbers by the pool (see `pool.ts`), `$n` placeholders.
 */
export const POSTGRES_DIALECT: Dialect = {
  placeholder: (index) => `$${index}`,
  encode: (_type, value) => value,
  decode: (_type, value) => value,
  indexOf: (haystack, needle) => `strpos(${haystack}, ${needle})`,
};

export const accounts = tableSql(ACCOUNTS, POSTGRES_DIALECT);
export const apiKeys = tableSql(API_KEYS, POSTGRES_DIALECT);
export const projects = tableSql(PROJECTS, POSTGRES_DIALECT);
export const files = tableSql(FILES, POSTGRES_DIALECT);
export const revisions = tableSql(REVISIONS, POSTGRES_DIALECT);
export const blobIntents = tableSql(BLOB_INTENTS, POSTGRES_DIALECT);
export const instances = tableSql(INSTANCES, POSTGRES_DIALECT);
export const trash = tableSql(TRASH, POSTGRES_DIALECT);

export type Row = Record<string, unknown>;
