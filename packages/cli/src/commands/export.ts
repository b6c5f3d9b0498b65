import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ExportFormat } from '@mdstore/client';
import { EXIT, UsageError } from '../context.js';
import { formatBytes } from '../format.js';
import { resolveProjectId } from '../project.js';
import type { Command } from './types.js';

/** `--format`, else the file's extension: `.tar.gz`/`.tgz` is tar.gz, anything else zip. */
function formatOf(file: string, given: string | undefined): ExportFormat {
  if (given !== undefined) {
    if (given !== 'zip' && given !== 'tar.gz') throw new UsageError('--format must be zip or tar.gz');
    return given;
  }
  return /\.(tar\.gz|tgz)$/i.test(file) ? 'tar.gz' : 'zip';
}

/** How often the byte count is redrawn on a terminal. */
const PROGRESS_INTERVAL_MS = 200;

/** Counts the bytes going through; on a terminal, shows the count on one line of stderr. */
function byteCounter(stderr: Writable & { isTTY?: boolean }, show: boolean) {
  let bytes = 0;
  let drawn = 0;
  const draw = (final: boolean) => {
    if (!show) return;
    stderr.write(final ? '\r\x1b[K' : `\rexport: ${formatBytes(bytes)}\x1b[K`);
  };
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      const now = Date.now();
      if (now - drawn >= PROGRESS_INTERVAL_MS) {
        drawn = now;
        draw(false);
      }
      done(null, chunk);
    },
  });
  return { counter, bytes: () => bytes, clear: () => draw(true) };
}

export const exportProject: Command = {
  name: 'export',
  usage: 'mdstore export PROJECT FILE [--format zip|tar.gz] [--prefix P] [--json]',
  summary:
    'writes the project (name or id; or its files under --prefix) to FILE as an archive with mdstore.json; - is stdout',
  options: { format: { type: 'string' }, prefix: { type: 'string' } },
  positionals: [2, 2],
  async run(ctx, [project, file], values) {
    const target = file!;
    const format = formatOf(target, values.format as string | undefined);
    const client = await ctx.client();
    const projectId = await resolveProjectId(client, project);
    const prefix = values.prefix as string | undefined;
    const archive = await client.projects.export(projectId, {
      format,
      ...(prefix !== undefined && { prefix }),
    });
    const body = Readable.fromWeb(archive.body as Parameters<typeof Readable.fromWeb>[0]);
    const toStdout = target === '-';
    const progress = byteCounter(ctx.io.stderr, !toStdout && !ctx.json && ctx.io.stderr.isTTY === true);
    if (toStdout) {
      await pipeline(body, progress.counter, ctx.io.stdout, { end: false });
      return EXIT.ok;
    }
    // Written beside the target and renamed into place: a failed export never leaves a short archive.
    const destination = path.resolve(target);
    const partial = `${destination}.partial-${process.pid}`;
    try {
      await pipeline(body, progress.counter, createWriteStream(partial, { flags: 'wx' }));
      await rename(partial, destination);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    } finally {
      progress.clear();
    }
    const summary = { project_id: projectId, file: destination, format, size_bytes: progress.bytes() };
    if (ctx.json) ctx.printJson(summary);
    else ctx.out(`exported ${project} to ${target} (${format}, ${formatBytes(progress.bytes())})`);
    return EXIT.ok;
  },
};
