import { craftTarGz, craftZip } from '../../support/crafted-archives.js';
import { ATTACHMENT_PATHS, attachmentKey } from './attachments.js';
import type { InFlightChangeset } from './changesets.js';
import { continued } from './history.js';
import { json, request } from './http-client.js';
import { type FileState, fileKey, fileState, type JsonObject, type ProjectModel } from './model.js';
import {
  auth,
  FILENAMES,
  makeContent,
  makeMetadata,
  type Operation,
  perform,
  readBack,
  type WorkloadContext,
} from './workload.js';

/**
 * Imports in the crash workload (extensions §10): one request carries a zip or a tar.gz of 1–4 of the
 * project's names (new files and new contents of existing ones, some above the inline threshold), an
 * `mdstore.json` giving some of them metadata, and entries the import must skip. An import is one
 * changeset: cut off by the kill, all of its files are found new after the restart, or none is
 * (`checkInFlightChangesets`, shared with the changesets). `replace` (only in a project without a trash,
 * and only while no other request touches the project's files) also deletes the files the archive
 * lacks, in the same changeset, and every attachment (extensions §12; while no attachment write runs in
 * the project: all its paths are held); a dry run must change nothing, even when the kill cuts it off.
 */

interface ImportedFile {
  readonly filename: string;
  readonly before: FileState | null;
  /** Null: deleted by `replace`. */
  readonly after: FileState | null;
}

interface ImportAnswer {
  created: string[];
  updated: string[];
  deleted: string[];
  skipped: { name: string; reason: string }[];
}

/** Entries every import skips (a dot folder, an attachment): they must never become files. */
const SKIPPED = [
  { name: '.obsidian/workspace.md', data: '# not a note\n' },
  { name: 'picture.png', data: 'not Markdown' },
];

export function importOperation(ctx: WorkloadContext, project: ProjectModel): Operation | undefined {
  const projectKeys = FILENAMES.map((name) => fileKey(project.id, name));
  const idle = projectKeys.every((key) => !ctx.cycle.busyFiles.has(key));
  // `replace` deletes what the archive lacks: every name of the project is held for its duration.
  const attachmentKeys = ATTACHMENT_PATHS.map((path) => attachmentKey(project.id, path));
  const attachmentsIdle = attachmentKeys.every((key) => !ctx.cycle.busyAttachments.has(key));
  const replace = project.trash === undefined && idle && attachmentsIdle && ctx.random.chance(0.3);
  // What `replace` deletes of the attachments: all of them (the archive carries none).
  const detached = replace ? [...(project.attachments?.keys() ?? [])] : [];
  const free = FILENAMES.filter((name) => !ctx.cycle.busyFiles.has(fileKey(project.id, name)));
  if (free.length === 0) return undefined;
  const count = Math.min(free.length, ctx.random.int(1, 4));
  const names: string[] = [];
  while (names.length < count) {
    const name = ctx.random.pick(free);
    if (!names.includes(name)) names.push(name);
  }
  const maxBytes = Math.floor(ctx.maxFileBytes / 4);
  const manifest: { filename: string; metadata: JsonObject | null }[] = [];
  const files: ImportedFile[] = names.map((filename) => {
    const before = project.files.get(filename) ?? null;
    const content = makeContent(ctx.random, maxBytes);
    // The manifest gives metadata (or null) to some files; the others keep their own (or have none).
    const roll = ctx.random.next();
    const given = roll < 0.4 ? makeMetadata(ctx.random) : roll < 0.5 ? null : undefined;
    if (given !== undefined) manifest.push({ filename, metadata: given });
    const metadata = given !== undefined ? given : (before?.metadata ?? null);
    const state = fileState(content, metadata);
    return { filename, before, after: before ? continued(state, before) : state };
  });
  if (replace) {
    for (const [filename, before] of project.files) {
      if (!names.includes(filename)) files.push({ filename, before, after: null });
    }
  }
  const dryRun = ctx.random.chance(0.1);
  const format = ctx.random.chance(0.3) ? 'tar.gz' : 'zip';
  const store = ctx.random.chance(0.3);
  const entries = [
    ...names.map((filename) => ({
      name: filename,
      data: files.find((file) => file.filename === filename)?.after?.content ?? Buffer.alloc(0),
      store,
    })),
    ...(ctx.random.chance(0.5) ? SKIPPED : []),
  ];
  if (manifest.length > 0) {
    const at = ctx.random.int(0, entries.length);
    entries.splice(at, 0, {
      name: 'mdstore.json',
      data: Buffer.from(JSON.stringify({ files: manifest })),
      store,
    });
  }
  const keys = replace ? projectKeys : names.map((name) => fileKey(project.id, name));
  for (const key of keys) ctx.cycle.busyFiles.add(key);
  if (replace) for (const key of attachmentKeys) ctx.cycle.busyAttachments.add(key);
  const kind = `import${replace ? ' (replace)' : ''}${dryRun ? ' (dry run)' : ''} ${format}`;
  const query = [replace && 'mode=replace', dryRun && 'dry_run=true'].filter(Boolean).join('&');
  return async () => {
    try {
      const body = format === 'zip' ? craftZip(entries) : await craftTarGz(entries);
      const acknowledged = await perform(ctx, {
        kind,
        projectId: project.id,
        expected: 200,
        send: () =>
          request(ctx.baseUrl, {
            method: 'POST',
            path: `/api/projects/${project.id}/import${query ? `?${query}` : ''}`,
            headers: {
              ...auth(ctx.model),
              'content-type': format === 'zip' ? 'application/zip' : 'application/gzip',
            },
            body,
          }),
        onAcknowledged: (reply) => {
          if (!reply.truncated) checkAnswer(ctx, project, files, detached, json(reply) as ImportAnswer);
          if (dryRun) return;
          for (const path of detached) project.attachments?.delete(path);
          // Acknowledged: every file at its new state (the answer gives no ETags).
          for (const file of files) {
            if (file.after === null) project.files.delete(file.filename);
            else project.files.set(file.filename, file.after);
          }
        },
        onInFlight: () => {
          if (dryRun) return;
          for (const path of detached)
            ctx.cycle.inFlightAttachments.set(attachmentKey(project.id, path), null);
          for (const file of files)
            ctx.cycle.inFlightFiles.set(fileKey(project.id, file.filename), file.after);
          const cutOff: InFlightChangeset = { projectId: project.id, files };
          ctx.cycle.inFlightChangesets.push(cutOff);
        },
      });
      if (acknowledged && ctx.random.chance(0.25)) {
        for (const file of files) {
          await readBack(ctx, project, file.filename, dryRun ? file.before : file.after);
        }
      }
    } finally {
      if (!ctx.killed()) {
        for (const key of keys) ctx.cycle.busyFiles.delete(key);
        if (replace) for (const key of attachmentKeys) ctx.cycle.busyAttachments.delete(key);
      }
    }
  };
}

/** The answer names exactly the files (and attachments) created, updated and deleted, and every skipped entry. */
function checkAnswer(
  ctx: WorkloadContext,
  project: ProjectModel,
  files: readonly ImportedFile[],
  detached: readonly string[],
  answer: ImportAnswer,
): void {
  const sorted = (names: string[]) => [...names].sort().join(', ');
  const expected = {
    created: files.filter((file) => file.before === null).map((file) => file.filename),
    updated: files.filter((file) => file.before !== null && file.after !== null).map((file) => file.filename),
    deleted: [...files.filter((file) => file.after === null).map((file) => file.filename), ...detached],
  };
  for (const list of ['created', 'updated', 'deleted'] as const) {
    if (sorted(answer[list]) !== sorted(expected[list])) {
      ctx.cycle.violations.push(
        `import into ${project.id}: ${list} [${sorted(answer[list])}], expected [${sorted(expected[list])}]`,
      );
    }
  }
  const skippedMarkdown = answer.skipped.filter((entry) => !SKIPPED.some((skip) => skip.name === entry.name));
  if (skippedMarkdown.length > 0) {
    ctx.cycle.violations.push(`import into ${project.id} skipped ${JSON.stringify(skippedMarkdown)}`);
  }
}
