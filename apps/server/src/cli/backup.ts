import { StoreUnavailableError } from '@mdstore/core';
import { createBackup } from '../backup/create.js';
import { backupS3Options, isS3Target, openBackupLocation } from '../backup/location.js';
import { restoreBackup } from '../backup/restore.js';
import { verifyBackup } from '../backup/verify.js';
import {
  type AdapterModules,
  defaultAdapterModules,
  openBlobStore,
  openDatabase,
} from '../composition/adapters.js';
import type { ServerConfig } from '../config/index.js';
import type { BackupCommand } from './commands.js';

/** What a backup command prints (JSON on stdout) and, when it fails on the backup, the problems for stderr. */
export interface BackupOutcome {
  readonly result: unknown;
  /** Non-empty: the command failed on the backup's content (exit 1), each named here. */
  readonly problems: readonly string[];
}

/**
 * `backup verify` needs no store; `backup create` and `restore` open the configured adapters only. A
 * backup at `s3://bucket/prefix` is reached with the server's S3 settings (`MDSTORE_S3_ENDPOINT`,
 * `_REGION`, `_FORCE_PATH_STYLE`, `_CHECKSUM`, credentials from the SDK's chain).
 */
export async function runBackupCommand(
  command: BackupCommand,
  config: () => ServerConfig,
  modules: AdapterModules = defaultAdapterModules,
): Promise<BackupOutcome> {
  const target = command.kind === 'backup create' ? command.to : command.path;
  const location = await openBackupLocation(
    target,
    isS3Target(target) ? backupS3Options(config().backup.s3) : {},
  );
  try {
    return await runOn(command, location, config, modules);
  } finally {
    await location.close();
  }
}

async function runOn(
  command: BackupCommand,
  location: Awaited<ReturnType<typeof openBackupLocation>>,
  config: () => ServerConfig,
  modules: AdapterModules,
): Promise<BackupOutcome> {
  if (command.kind === 'backup verify') {
    const report = await verifyBackup(location);
    return {
      result: {
        path: report.path,
        ok: report.ok,
        problems: report.problems,
        checksum: report.manifest?.checksum ?? null,
      },
      problems: report.problems,
    };
  }
  const settings = config();
  const database = await openDatabase(settings.database, modules);
  try {
    const blobs = await openBlobStore(settings.blobStore, modules);
    try {
      const archive = database.archive;
      if (!archive) throw new StoreUnavailableError('This records store cannot be backed up or restored');
      if (command.kind === 'backup create') {
        const report = await createBackup(
          {
            archive,
            blobs,
            pair: { database: settings.database.kind, blob_store: settings.blobStore.kind },
          },
          { to: location },
        );
        const { manifest } = report;
        return {
          result: {
            path: report.path,
            created_at: manifest.created_at,
            schema_version: manifest.schema_version,
            rows: Object.fromEntries(manifest.tables.map((table) => [table.name, table.rows])),
            blobs: manifest.blobs.count,
            blob_bytes: manifest.blobs.total_bytes,
            checksum: manifest.checksum,
          },
          problems: [],
        };
      }
      const report = await restoreBackup({ archive, blobs }, { from: location });
      return { result: report, problems: [] };
    } finally {
      await blobs.close();
    }
  } finally {
    await database.close();
  }
}
