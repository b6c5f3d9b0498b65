import { StoreUnavailableError } from '@mdstore/core';
import { createBackup } from '../backup/create.js';
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

/** `backup verify` needs no store; `backup create` and `restore` open the configured adapters only. */
export async function runBackupCommand(
  command: BackupCommand,
  config: () => ServerConfig,
  modules: AdapterModules = defaultAdapterModules,
): Promise<BackupOutcome> {
  if (command.kind === 'backup verify') {
    const report = await verifyBackup(command.path);
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
          { to: command.to },
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
      const report = await restoreBackup({ archive, blobs }, { from: command.path });
      return { result: report, problems: [] };
    } finally {
      await blobs.close();
    }
  } finally {
    await database.close();
  }
}
