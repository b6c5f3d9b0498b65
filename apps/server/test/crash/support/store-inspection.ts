import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { GetObjectCommand, ListBucketsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { S3rverClientOptions } from '@mdstore/s3/testing';
import Database from 'better-sqlite3';
import pg from 'pg';
import { sha256 } from './model.js';

/** The stores as they are on disk, read around the server (never through it). */
export interface StoreSnapshot {
  readonly projects: readonly {
    id: string;
    bucket: string;
    status: string;
    fileCount: number;
    totalSizeBytes: number;
    historySizeBytes: number;
    trashSizeBytes: number;
    attachmentCount: number;
    attachmentBytes: number;
  }[];
  /** Attachment records (extensions §12): each points to a blob of its project's bucket. */
  readonly attachments: readonly {
    projectId: string;
    path: string;
    sizeBytes: number;
    sha256: string;
    blobKey: string;
  }[];
  /**
   * Trash items (extensions §5): the file as deleted, its revisions still in `revisions`; or (kind
   * `attachment`, extensions §12) a deleted attachment, its path in `filename`, its blob key in `contentKey`.
   */
  readonly trash: readonly {
    id: string;
    projectId: string;
    fileId: string;
    filename: string;
    sizeBytes: number;
    sha256: string;
    contentKey: string;
    inline: boolean;
    revision: number;
    expiresAt: number;
    kind: 'file' | 'attachment';
  }[];
  readonly files: readonly {
    id: string;
    projectId: string;
    filename: string;
    sizeBytes: number;
    sha256: string;
    contentKey: string;
    inline: boolean;
    revision: number;
    metadataJson: string | null;
  }[];
  /** Every kept revision (the current one of each file included). */
  readonly revisions: readonly {
    fileId: string;
    projectId: string;
    revision: number;
    sizeBytes: number;
    sha256: string;
    contentKey: string;
    inline: boolean;
  }[];
  /** Content stored in the records: project id → key → its size and digest. */
  readonly inlineContents: ReadonlyMap<string, ReadonlyMap<string, { sizeBytes: number; sha256: string }>>;
  readonly intents: readonly {
    id: string;
    kind: string;
    bucket: string;
    key: string | null;
    owner: string;
  }[];
  readonly instances: readonly { id: string; pid: number }[];
  /** The files the search index holds (written in the transaction of their record). */
  readonly indexedFileIds: readonly string[];
  /** bucket → key → the object's size and digest. */
  readonly buckets: ReadonlyMap<string, ReadonlyMap<string, { sizeBytes: number; sha256: string }>>;
  /** Anything else a crash must not leave behind (e.g. temp files of dead processes). */
  readonly leftovers: readonly string[];
}

export interface StoreInspector {
  readonly name: string;
  snapshot(): Promise<StoreSnapshot>;
  /** With the server down: makes these trash items expired (their `expires_at` in the past). */
  expireTrash(ids: readonly string[]): Promise<void>;
  close(): void;
}

interface ProjectRow {
  id: string;
  bucket_name: string;
  status: string;
  file_count: number | string;
  total_size_bytes: number | string;
  history_size_bytes: number | string;
  trash_size_bytes: number | string;
  attachment_count: number | string;
  attachment_bytes: number | string;
}
interface AttachmentRow {
  project_id: string;
  path: string;
  size_bytes: number | string;
  sha256: string;
  blob_key: string;
}
interface TrashRow {
  id: string;
  project_id: string;
  file_id: string;
  filename: string;
  size_bytes: number | string;
  sha256: string;
  content_key: string;
  inline: number | boolean;
  revision: number;
  expires_at: number | string;
  kind: 'file' | 'attachment';
}
interface FileRow {
  id: string;
  project_id: string;
  filename: string;
  size_bytes: number | string;
  sha256: string;
  content_key: string;
  inline: number | boolean;
  revision: number;
  metadata_json: string | null;
}
interface RevisionRow {
  file_id: string;
  project_id: string;
  revision: number;
  size_bytes: number | string;
  sha256: string;
  content_key: string;
  inline: number | boolean;
}
interface InlineRow {
  project_id: string;
  content_key: string;
  bytes: Uint8Array;
}
interface IntentRow {
  id: string;
  kind: string;
  bucket: string;
  key: string | null;
  owner_instance_id: string;
}

const QUERIES = {
  projects:
    'SELECT id, bucket_name, status, file_count, total_size_bytes, history_size_bytes, trash_size_bytes, ' +
    'attachment_count, attachment_bytes FROM projects',
  attachments: 'SELECT project_id, path, size_bytes, sha256, blob_key FROM attachments',
  trash:
    'SELECT id, project_id, file_id, filename, size_bytes, sha256, content_key, inline, revision, expires_at, kind FROM trash_items',
  files:
    'SELECT id, project_id, filename, size_bytes, sha256, content_key, inline, revision, metadata_json FROM files',
  revisions:
    'SELECT file_id, project_id, revision, size_bytes, sha256, content_key, inline FROM file_revisions',
  inlineContents: 'SELECT project_id, content_key, bytes FROM inline_contents',
  intents: 'SELECT id, kind, bucket, key, owner_instance_id FROM blob_intents',
  instances: 'SELECT id, pid FROM instances',
};
/** The search index's rows: SQLite's indexed texts (each with its FTS5 row), Postgres's documents. */
const SEARCH_QUERIES = {
  sqlite:
    'SELECT file_id FROM search_texts WHERE rowid IN (SELECT rowid FROM search_fts) ' +
    'AND (SELECT count(*) FROM search_fts) = (SELECT count(*) FROM search_texts)',
  postgres: 'SELECT file_id FROM search_documents',
};

/** Rows to the snapshot's shape; Postgres returns BIGINT columns as strings. */
function fromRows(rows: {
  projects: ProjectRow[];
  attachments: AttachmentRow[];
  trash: TrashRow[];
  files: FileRow[];
  revisions: RevisionRow[];
  inlineContents: InlineRow[];
  intents: IntentRow[];
  instances: { id: string; pid: number }[];
  indexed: { file_id: string }[];
}) {
  const inlineContents = new Map<string, Map<string, { sizeBytes: number; sha256: string }>>();
  for (const row of rows.inlineContents) {
    const ofProject = inlineContents.get(row.project_id) ?? new Map();
    ofProject.set(row.content_key, { sizeBytes: row.bytes.length, sha256: sha256(row.bytes) });
    inlineContents.set(row.project_id, ofProject);
  }
  return {
    projects: rows.projects.map((r) => ({
      id: r.id,
      bucket: r.bucket_name,
      status: r.status,
      fileCount: Number(r.file_count),
      totalSizeBytes: Number(r.total_size_bytes),
      historySizeBytes: Number(r.history_size_bytes),
      trashSizeBytes: Number(r.trash_size_bytes),
      attachmentCount: Number(r.attachment_count),
      attachmentBytes: Number(r.attachment_bytes),
    })),
    attachments: rows.attachments.map((r) => ({
      projectId: r.project_id,
      path: r.path,
      sizeBytes: Number(r.size_bytes),
      sha256: r.sha256,
      blobKey: r.blob_key,
    })),
    trash: rows.trash.map((r) => ({
      id: r.id,
      projectId: r.project_id,
      fileId: r.file_id,
      filename: r.filename,
      sizeBytes: Number(r.size_bytes),
      sha256: r.sha256,
      contentKey: r.content_key,
      inline: r.inline === 1 || r.inline === true,
      revision: Number(r.revision),
      expiresAt: Number(r.expires_at),
      kind: r.kind,
    })),
    files: rows.files.map((r) => ({
      projectId: r.project_id,
      id: r.id,
      filename: r.filename,
      sizeBytes: Number(r.size_bytes),
      sha256: r.sha256,
      contentKey: r.content_key,
      inline: r.inline === 1 || r.inline === true,
      revision: Number(r.revision),
      metadataJson: r.metadata_json,
    })),
    revisions: rows.revisions.map((r) => ({
      fileId: r.file_id,
      projectId: r.project_id,
      revision: Number(r.revision),
      sizeBytes: Number(r.size_bytes),
      sha256: r.sha256,
      contentKey: r.content_key,
      inline: r.inline === 1 || r.inline === true,
    })),
    inlineContents,
    intents: rows.intents.map((r) => ({
      id: r.id,
      kind: r.kind,
      bucket: r.bucket,
      key: r.key,
      owner: r.owner_instance_id,
    })),
    instances: rows.instances.map((r) => ({ id: r.id, pid: Number(r.pid) })),
    indexedFileIds: rows.indexed.map((r) => r.file_id),
  };
}

/** SQLite opened read-only beside the running server, and the blob folders walked by hand. */
export function sqliteFsInspector(dataDir: string): StoreInspector {
  return {
    name: 'sqlite+fs',
    async snapshot() {
      const db = new Database(path.join(dataDir, 'mdstore.db'), { readonly: true, fileMustExist: true });
      let rows: Parameters<typeof fromRows>[0];
      try {
        rows = {
          projects: db.prepare(QUERIES.projects).all() as ProjectRow[],
          attachments: db.prepare(QUERIES.attachments).all() as AttachmentRow[],
          trash: db.prepare(QUERIES.trash).all() as TrashRow[],
          files: db.prepare(QUERIES.files).all() as FileRow[],
          revisions: db.prepare(QUERIES.revisions).all() as RevisionRow[],
          inlineContents: db.prepare(QUERIES.inlineContents).all() as InlineRow[],
          intents: db.prepare(QUERIES.intents).all() as IntentRow[],
          instances: db.prepare(QUERIES.instances).all() as { id: string; pid: number }[],
          indexed: db.prepare(SEARCH_QUERIES.sqlite).all() as { file_id: string }[],
        };
      } finally {
        db.close();
      }
      const root = path.join(dataDir, 'blobs');
      return { ...fromRows(rows), ...(await walkFsBlobs(root)) };
    },
    async expireTrash(ids) {
      const db = new Database(path.join(dataDir, 'mdstore.db'), { fileMustExist: true });
      try {
        const expire = db.prepare('UPDATE trash_items SET expires_at = 1 WHERE id = ?');
        db.transaction(() => {
          for (const id of ids) expire.run(id);
        })();
      } finally {
        db.close();
      }
    },
    close() {},
  };
}

/** The fs store's scratch folders; their entries are named `<pid>-…` after the process that made them. */
const SCRATCH = new Set(['.tmp', '.trash']);

async function walkFsBlobs(root: string) {
  const buckets = new Map<string, Map<string, { sizeBytes: number; sha256: string }>>();
  const leftovers: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (SCRATCH.has(entry.name)) {
      for (const name of await readdir(path.join(root, entry.name))) {
        if (!isRunning(Number(/^(\d+)-/.exec(name)?.[1]))) leftovers.push(`${entry.name}/${name}`);
      }
      continue;
    }
    if (!entry.isDirectory()) {
      leftovers.push(entry.name);
      continue;
    }
    const objects = new Map<string, { sizeBytes: number; sha256: string }>();
    for await (const { segments, file } of walkObjects(path.join(root, entry.name), [])) {
      const key = decodeFsKey(segments);
      if (key === null) leftovers.push(`${entry.name}/${segments.join('/')}`);
      else {
        const bytes = await readFile(file);
        objects.set(key, { sizeBytes: bytes.length, sha256: sha256(bytes) });
      }
    }
    buckets.set(entry.name, objects);
  }
  return { buckets, leftovers };
}

async function* walkObjects(
  dir: string,
  segments: string[],
): AsyncGenerator<{ segments: string[]; file: string }> {
  const entries: Dirent[] = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walkObjects(full, [...segments, entry.name]);
    else yield { segments: [...segments, entry.name], file: full };
  }
}

function isRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * The key of an object file of the fs store (see packages/fs/src/safe-path.ts): the UTF-8 of the key in
 * lower-case unpadded base32, split into `<segment>.d` directories and a final `<segment>.blob` file.
 * Written out here rather than imported so that the check does not trust the code it checks.
 */
export function decodeFsKey(segments: readonly string[]): string | null {
  let encoded = '';
  for (const [i, name] of segments.entries()) {
    const suffix = i === segments.length - 1 ? '.blob' : '.d';
    if (!name.endsWith(suffix)) return null;
    encoded += name.slice(0, -suffix.length);
  }
  if (!/^[a-z2-7]+$/.test(encoded)) return null;
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of encoded) {
    buffer = ((buffer << 5) | BASE32.indexOf(char)) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    return null;
  }
}

/** Postgres queried in the server's schema, and s3rver listed and read with a client of our own. */
export function postgresS3Inspector(o: {
  databaseUrl: string;
  schema: string;
  s3: S3rverClientOptions;
}): StoreInspector {
  const s3 = new S3Client({ ...o.s3 });
  return {
    name: 'postgres+s3',
    async snapshot() {
      const client = new pg.Client({ connectionString: o.databaseUrl });
      await client.connect();
      let rows: Parameters<typeof fromRows>[0];
      try {
        await client.query(`SET search_path TO "${o.schema}"`);
        const all = async <R extends pg.QueryResultRow>(sql: string) => (await client.query<R>(sql)).rows;
        rows = {
          projects: await all<ProjectRow>(QUERIES.projects),
          attachments: await all<AttachmentRow>(QUERIES.attachments),
          trash: await all<TrashRow>(QUERIES.trash),
          files: await all<FileRow>(QUERIES.files),
          revisions: await all<RevisionRow>(QUERIES.revisions),
          inlineContents: await all<InlineRow>(QUERIES.inlineContents),
          intents: await all<IntentRow>(QUERIES.intents),
          instances: await all<{ id: string; pid: number }>(QUERIES.instances),
          indexed: await all<{ file_id: string }>(SEARCH_QUERIES.postgres),
        };
      } finally {
        await client.end();
      }
      return { ...fromRows(rows), ...(await walkS3(s3)), leftovers: [] };
    },
    async expireTrash(ids) {
      const client = new pg.Client({ connectionString: o.databaseUrl });
      await client.connect();
      try {
        await client.query(`SET search_path TO "${o.schema}"`);
        await client.query('UPDATE trash_items SET expires_at = 1 WHERE id = ANY($1::text[])', [[...ids]]);
      } finally {
        await client.end();
      }
    },
    close: () => s3.destroy(),
  };
}

async function walkS3(s3: S3Client) {
  const buckets = new Map<string, Map<string, { sizeBytes: number; sha256: string }>>();
  const listed = await s3.send(new ListBucketsCommand({}));
  for (const { Name } of listed.Buckets ?? []) {
    if (!Name) continue;
    const objects = new Map<string, { sizeBytes: number; sha256: string }>();
    let token: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: Name, ContinuationToken: token }));
      for (const { Key } of page.Contents ?? []) {
        if (!Key) continue;
        const object = await s3.send(new GetObjectCommand({ Bucket: Name, Key }));
        const bytes = await object.Body?.transformToByteArray();
        const content = bytes ?? new Uint8Array();
        objects.set(decodeS3Key(Key), { sizeBytes: content.length, sha256: sha256(content) });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    buckets.set(Name, objects);
  }
  return { buckets };
}

/** The S3 adapter stores portable keys verbatim and others escaped under `~/` (packages/s3/src/keys.ts). */
function decodeS3Key(s3Key: string): string {
  if (!s3Key.startsWith('~/')) return s3Key;
  return s3Key
    .slice(2)
    .replaceAll('/', '')
    .replace(/%(25|2F|2E)/g, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
