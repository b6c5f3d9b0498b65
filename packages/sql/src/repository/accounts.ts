import type { RecordsReader, RecordsTransaction } from '@mdstore/core';
import type { Row, SqlExecutor } from '../executor.js';
import { fromApiKeyRow, toApiKeyRow } from '../records.js';
import { orNull, type SqlContext } from './context.js';

type AccountReads = Pick<
  RecordsReader,
  | 'findAccountById'
  | 'findAccountByName'
  | 'listAccounts'
  | 'findApiKeyById'
  | 'findApiKeys'
  | 'findApiKeyByHash'
  | 'findApiKeyWithAccount'
  | 'listApiKeys'
>;
type AccountWrites = Pick<
  RecordsTransaction,
  'insertAccount' | 'updateAccountTier' | 'insertApiKey' | 'revokeApiKey' | 'touchApiKey'
>;

/** Accounts and their API keys. */
export function accountStatements(c: SqlContext) {
  const { accounts, apiKeys } = c;
  const ACCOUNT = `SELECT ${accounts.columns()} FROM accounts`;
  const API_KEY = `SELECT ${apiKeys.columns()} FROM api_keys`;
  const s = {
    accountById: c.sql(`${ACCOUNT} WHERE id = ?`),
    accountByName: c.sql(`${ACCOUNT} WHERE name = ?`),
    allAccounts: `${ACCOUNT} ORDER BY created_at, id`,
    apiKeyById: c.sql(`${API_KEY} WHERE id = ?`),
    apiKeyByHash: c.sql(`${API_KEY} WHERE key_hash = ?`),
    apiKeysOfAccount: c.sql(`${API_KEY} WHERE account_id = ? ORDER BY created_at, id`),
    apiKeysOfAccountLimited: c.sql(`${API_KEY} WHERE account_id = ? ORDER BY created_at, id LIMIT ?`),
    activeApiKeysOfAccount: c.sql(
      `${API_KEY} WHERE account_id = ? AND revoked_at IS NULL ORDER BY created_at, id LIMIT ?`,
    ),
    // Authentication's read: the key and its account in one statement (the key's columns as they are,
    // the account's prefixed).
    apiKeyWithAccount: c.sql(
      `SELECT ${apiKeys.columns('k')}, ${accounts.prefixedColumns('a', 'account__')}
       FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?`,
    ),
    updateTier: c.sql('UPDATE accounts SET tier = ? WHERE id = ?'),
    revokeApiKey: c.sql('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    touchApiKey: c.sql(
      'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
    ),
  };
  // Any number of ids in one statement: the list is one parameter.
  const someKeys = `${API_KEY} WHERE ${c.dialect.inList('id', c.dialect.placeholder(1), 'text')}`;
  const toKey = (row: Row) => fromApiKeyRow(apiKeys.fromRow(row));
  return {
    reads: (x: SqlExecutor): AccountReads => ({
      findAccountById: async (q) => orNull(await x.get(s.accountById, [q.accountId]), accounts.fromRow),
      findAccountByName: async (q) => orNull(await x.get(s.accountByName, [q.name]), accounts.fromRow),
      listAccounts: async () => (await x.all(s.allAccounts, [])).map(accounts.fromRow),
      findApiKeyById: async (q) => orNull(await x.get(s.apiKeyById, [q.keyId]), toKey),
      findApiKeys: async (q) =>
        q.keyIds.length === 0
          ? []
          : (await x.all(someKeys, [c.dialect.list([...new Set(q.keyIds)], 'text')])).map(toKey),
      findApiKeyByHash: async (q) => orNull(await x.get(s.apiKeyByHash, [q.keyHash]), toKey),
      findApiKeyWithAccount: async (q) =>
        orNull(await x.get(s.apiKeyWithAccount, [q.keyHash]), (row) => ({
          apiKey: toKey(row),
          account: accounts.fromPrefixedRow(row, 'account__'),
        })),
      listApiKeys: async (q) => {
        const limit = q.limit ?? Number.MAX_SAFE_INTEGER;
        const rows = q.activeOnly
          ? await x.all(s.activeApiKeysOfAccount, [q.accountId, limit])
          : q.limit !== undefined
            ? await x.all(s.apiKeysOfAccountLimited, [q.accountId, limit])
            : await x.all(s.apiKeysOfAccount, [q.accountId]);
        return rows.map(toKey);
      },
    }),
    writes: (x: SqlExecutor): AccountWrites => ({
      insertAccount: async (c) => {
        await x.write(accounts.insert, accounts.insertValues(c.account));
      },
      updateAccountTier: async (c) => (await x.run(s.updateTier, [c.tier, c.accountId])) > 0,
      insertApiKey: async (c) => {
        await x.write(apiKeys.insert, apiKeys.insertValues(toApiKeyRow(c.apiKey)));
      },
      revokeApiKey: async (c) => (await x.run(s.revokeApiKey, [c.revokedAt, c.keyId])) > 0,
      touchApiKey: async (c) => {
        await x.run(s.touchApiKey, [c.lastUsedAt, c.keyId, c.lastUsedAt]);
      },
    }),
  };
}
