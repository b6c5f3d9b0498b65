import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MdStoreApiError, type Metadata } from '@mdstore/client';
import { toNodeReadable } from '@mdstore/client/node';
import { EXIT, UsageError } from '../context.js';
import { formatBytes, table } from '../format.js';
import type { Command } from './types.js';

/** Files per request of `ls` (the server's largest page). */
const LS_PAGE_SIZE = 1000;

export const ls: Command = {
  name: 'ls',
  usage: 'mdstore ls [PREFIX] [-l] [--project P] [--json]',
  summary: 'the files of the project (whose names start with PREFIX)',
  options: { long: { type: 'boolean', short: 'l' } },
  positionals: [0, 1],
  async run(ctx, [prefix = ''], values) {
    const client = await ctx.client();
    const projectId = await ctx.projectId();
    const files = [];
    // The server narrows and pages (extensions §3); the check stays for servers that ignore `prefix`.
    const pages = client.files.iterate(projectId, { pageSize: LS_PAGE_SIZE, ...(prefix && { prefix }) });
    for await (const file of pages) if (file.filename.startsWith(prefix)) files.push(file);
    if (ctx.json) {
      ctx.printJson({ project_id: projectId, files });
    } else if (values.long) {
      const rows = files.map((f) => [
        formatBytes(f.size_bytes),
        `r${f.revision}`,
        f.updated_date,
        f.filename,
      ]);
      if (rows.length > 0) ctx.out(table(rows));
    } else {
      for (const file of files) ctx.out(file.filename);
    }
    return EXIT.ok;
  },
};

export const cat: Command = {
  name: 'cat',
  usage: 'mdstore cat NAME [--project P]',
  summary: 'writes a file’s content to stdout',
  options: {},
  positionals: [1, 1],
  async run(ctx, [name]) {
    const client = await ctx.client();
    const download = await client.files.download(await ctx.projectId(), name!);
    await pipeline(toNodeReadable(download), ctx.io.stdout as Writable, { end: false });
    return EXIT.ok;
  },
};

function parseMetadata(text: string | undefined): Metadata | undefined {
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError('--metadata must be a JSON object');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError('--metadata must be a JSON object');
  }
  return parsed as Metadata;
}

async function readAll(stream: Readable): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

export const put: Command = {
  name: 'put',
  usage: 'mdstore put LOCAL_FILE|- [NAME] [--metadata JSON] [--if-match ETAG] [--project P] [--json]',
  summary: 'uploads a file, or replaces the content of the file of that name (- reads stdin)',
  options: { metadata: { type: 'string' }, 'if-match': { type: 'string' } },
  positionals: [1, 2],
  async run(ctx, [source, given], values) {
    if (source === '-' && given === undefined)
      throw new UsageError('put - needs the NAME to store stdin under');
    const name = given ?? path.basename(source!);
    const metadata = parseMetadata(values.metadata as string | undefined);
    const ifMatch = values['if-match'] as string | undefined;
    const content = source === '-' ? await readAll(ctx.io.stdin) : await readFile(source!);
    const client = await ctx.client();
    const projectId = await ctx.projectId();
    let result: { filename: string; size_bytes: number; revision: number; etag: string } | undefined;
    if (ifMatch === undefined) {
      try {
        result = await client.files.upload(projectId, name, content, {
          sha256: true,
          ...(metadata && { metadata }),
        });
      } catch (error) {
        if (!(error instanceof MdStoreApiError) || error.status !== 409) throw error;
      }
    }
    const created = result !== undefined;
    if (result === undefined) {
      // The name is taken (or --if-match says it must be): replace the content, then the metadata.
      result = await client.files.updateContent(projectId, name, content, {
        sha256: true,
        ...(ifMatch !== undefined && { ifMatch }),
      });
      if (metadata)
        result = await client.files.updateMetadata(projectId, name, metadata, { ifMatch: result.etag });
    }
    if (ctx.json) ctx.printJson(result);
    else
      ctx.out(
        `${created ? 'uploaded' : 'replaced'} ${result.filename} (${formatBytes(result.size_bytes)}, revision ${result.revision})`,
      );
    return EXIT.ok;
  },
};

export const rm: Command = {
  name: 'rm',
  usage: 'mdstore rm NAME [--if-match ETAG] [--project P] [--json]',
  summary: 'deletes a file',
  options: { 'if-match': { type: 'string' } },
  positionals: [1, 1],
  async run(ctx, [name], values) {
    const client = await ctx.client();
    const ifMatch = values['if-match'] as string | undefined;
    await client.files.delete(await ctx.projectId(), name!, ifMatch === undefined ? {} : { ifMatch });
    if (ctx.json) ctx.printJson({ deleted: name });
    else ctx.out(`deleted ${name}`);
    return EXIT.ok;
  },
};
