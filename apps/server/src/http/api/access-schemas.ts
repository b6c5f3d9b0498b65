import {
  CreateKeyBodySchema,
  CreateShareBodySchema,
  NameSchema,
  RoleSchema,
  UuidSchema,
} from '@mdstore/core';
import * as v from 'valibot';

/** The bodies of the access routes (extensions §8): API keys and the audit log. */

const Timestamp = v.pipe(v.string(), v.isoTimestamp(), v.description('UTC ISO 8601 with milliseconds'));
const NullableTimestamp = v.nullable(Timestamp);

export const KeyCreate = v.pipe(
  CreateKeyBodySchema,
  v.description(
    'A key with no more than the creating key has: a role no higher, a subset of its projects when it is scoped, only folders inside its folders when it has some (`path_prefixes`, extensions §14), an expiry no later when it expires.',
  ),
);

const keyEntries = {
  id: UuidSchema,
  name: NameSchema,
  role: RoleSchema,
  project_ids: v.pipe(
    v.nullable(v.array(UuidSchema)),
    v.description('The projects the key reaches; null: every project of the account.'),
  ),
  path_prefixes: v.pipe(
    v.nullable(v.array(v.string())),
    v.description(
      'The folders the key reaches (extensions §14), each ending with `/`; null: every file of its projects.',
    ),
  ),
  expires_date: NullableTimestamp,
  created_date: Timestamp,
};

export const Key = v.object({
  ...keyEntries,
  last_used_date: v.pipe(NullableTimestamp, v.description('At most a minute stale.')),
});

export const KeyCreated = v.object({
  ...keyEntries,
  api_key: v.pipe(v.string(), v.description('The secret: shown only in this answer.')),
});

export const KeyList = v.object({ keys: v.array(Key) });

export const AuditEntry = v.object({
  id: UuidSchema,
  date: Timestamp,
  key_id: v.pipe(v.nullable(UuidSchema), v.description('Null for a request without a valid key.')),
  action: v.pipe(v.string(), v.description('`METHOD route-template`, e.g. `PUT /api/projects/:project_id`.')),
  project_id: v.nullable(v.string()),
  filename: v.nullable(v.string()),
  status: v.pipe(v.number(), v.integer()),
  request_id: v.nullable(v.string()),
  ip: v.nullable(v.string()),
});

export const AuditList = v.object({
  entries: v.array(AuditEntry),
  next_cursor: v.pipe(v.nullable(v.string()), v.description('The next page, or null on the last.')),
});

/** Share links (extensions §11). */
export const ShareCreate = v.pipe(
  CreateShareBodySchema,
  v.description(
    'Exactly one of `filename` (a file of the project) and `prefix` (a folder, ending with `/`); `expires_in_seconds` from 60 to 2592000, 604800 (7 days) by default.',
  ),
);

const shareEntries = {
  id: UuidSchema,
  filename: v.pipe(v.nullable(v.string()), v.description('The file shared, or null for a folder.')),
  prefix: v.pipe(
    v.nullable(v.string()),
    v.description('The folder shared (ending with `/`), or null for a file.'),
  ),
  expires_date: Timestamp,
  created_date: Timestamp,
};

export const Share = v.object(shareEntries);

export const ShareCreated = v.object({
  ...shareEntries,
  url: v.pipe(
    v.string(),
    v.description('`{base_url}/s/{token}`: the link, readable without a key; shown only in this answer.'),
  ),
});

export const ShareList = v.object({ shares: v.array(Share) });

export const ACCESS_COMPONENTS = {
  KeyCreate,
  Key,
  KeyCreated,
  KeyList,
  AuditEntry,
  AuditList,
  ShareCreate,
  Share,
  ShareCreated,
  ShareList,
} as const;
