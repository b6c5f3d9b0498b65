import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { type Readable, Transform, type Writable } from 'node:stream';
import type { ExportFormat, Importer, ImportResult } from '@mdstore/client';
import { EXIT, UsageError } from '../context.js';
import { formatBytes } from '../format.js';
import { resolveProjectId } from '../project.js';
import { folderFiles, type LocalSkip, packFolder, webStreamOf } from './pack.js';
import type { Command } from './types.js';

const IMPORTERS: readonly Importer[] = ['plain', 'obsidian', 'notion', 'gitbook'];

function importerOf(given: string | undefined): Importer | undefined {
  if (given === undefined) return undefined;
  if (!(IMPORTERS as readonly string[]).includes(given)) {
    throw new UsageError(`--importer must be one of ${IMPORTERS.join(', ')}`);
  }
  return given as Importer;
}

/** Bytes sent so far, on one line of stderr when it is a terminal. */
function sentCounter(stderr: Writable & { isTTY?: boolean }, show: boolean) {
  let bytes = 0;
  let drawn = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      const now = Date.now();
      if (show && now - drawn >= 200) {
        drawn = now;
        stderr.write(`\rimport: ${formatBytes(bytes)} sent\x1b[K`);
      }
      done(null, chunk);
    },
  });
  return { counter, clear: () => show && stderr.write('\r\x1b[K') };
}

export const importProject: Command = {
  name: 'import',
  usage:
    'mdstore import PROJECT FILE|FOLDER [--mode merge|replace] [--importer plain|obsidian|notion|gitbook] [--dry-run] [--json]',
  summary:
    'imports a zip or tar.gz (an export, a Notion or GitBook export) or a folder (sent as a tar.gz of its Markdown) as one changeset',
  options: {
    mode: { type: 'string' },
    importer: { type: 'string' },
    'dry-run': { type: 'boolean', short: 'n' },
  },
  positionals: [2, 2],
  async run(ctx, [project, source], values) {
    const mode = values.mode as string | undefined;
    if (mode !== undefined && mode !== 'merge' && mode !== 'replace') {
      throw new UsageError('--mode must be merge or replace');
    }
    const importer = importerOf(values.importer as string | undefined);
    const client = await ctx.client();
    const projectId = await resolveProjectId(client, project);
    const show = !ctx.json && ctx.io.stderr.isTTY === true;
    const sent = sentCounter(ctx.io.stderr, show);
    const found = await stat(source!).catch(() => {
      throw new UsageError(`${source}: no such file or folder`);
    });
    let body: Readable;
    let format: ExportFormat;
    let local: LocalSkip[] = [];
    if (found.isDirectory()) {
      const folder = await folderFiles(source!);
      local = folder.skipped;
      body = packFolder(folder.files);
      format = 'tar.gz';
    } else {
      body = createReadStream(source!);
      format = /\.(tar\.gz|tgz)$/i.test(source!) ? 'tar.gz' : 'zip';
    }
    let result: ImportResult;
    try {
      result = await client.projects.import(projectId, webStreamOf(body.pipe(sent.counter)), {
        format,
        ...(mode !== undefined && { mode: mode as 'merge' | 'replace' }),
        ...(importer && { importer }),
        ...(values['dry-run'] === true && { dryRun: true }),
      });
    } finally {
      sent.clear();
    }
    const report = { ...result, skipped: [...local, ...result.skipped] };
    if (ctx.json) {
      ctx.out(JSON.stringify(report));
      return EXIT.ok;
    }
    const would = values['dry-run'] === true ? 'would be ' : '';
    for (const name of report.created) ctx.out(`${would}created: ${name}`);
    for (const name of report.updated) ctx.out(`${would}updated: ${name}`);
    for (const name of report.deleted) ctx.out(`${would}deleted: ${name}`);
    for (const skip of report.skipped) ctx.out(`skipped: ${skip.name} (${skip.reason})`);
    if (report.skipped_omitted) ctx.out(`skipped: ${report.skipped_omitted} more not listed by the server`);
    ctx.out(
      `${report.created.length} created, ${report.updated.length} updated, ${report.unchanged.length} unchanged, ` +
        `${report.deleted.length} deleted, ${report.skipped.length + (report.skipped_omitted ?? 0)} skipped` +
        (report.changeset_id
          ? ` (changeset ${report.changeset_id})`
          : values['dry-run'] === true
            ? ' (dry run)'
            : ''),
    );
    return EXIT.ok;
  },
};
