// CPU time per request of the built sqlite+fs server and of the baselines the bench compares it with
// (docs/performance.md, "Issue 23: the last round"), for GET project, download 4 KiB and upload 4 KiB.
// Each server runs alone (never two at once), gets a warm-up, then `--requests` requests from autocannon
// (10 connections); the server process's user + system CPU time over those requests (from
// /proc/<pid>/stat) is divided by their count. Unlike throughput on a 2-core machine shared with the
// load generator, this does not depend much on what else runs: it is the cost the targets' ratios are
// about. Usage: node --conditions=mdstore-source --import tsx bench/support/cpu-per-request.ts
//        [--requests N] [--only get-project,download-4k,upload-4k]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { KiB, markdownBytes, multipartTemplate } from '../lib/content.js';
import { closeHttpAgent, httpJson, httpRequest, runAutocannon } from '../lib/load.js';
import {
  makeTempDir,
  removeDir,
  seedAccounts,
  serverEnvironment,
  sqliteFsFlavour,
  startMdstore,
} from '../lib/mdstore.js';
import { type Child, REPO_ROOT, spawnNode, waitUntilReady } from '../lib/processes.js';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** The process's user + system CPU time so far, in µs. */
function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after the command name.
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
}

interface Load {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  readonly body?: Buffer;
  readonly setupRequest?: (request: Record<string, unknown>) => Record<string, unknown>;
}

async function cpuPerRequest(pid: number, load: Load, requests: number): Promise<number> {
  const run = (amount: number) =>
    runAutocannon({
      title: load.url,
      url: load.url,
      connections: 10,
      amount,
      requests: [
        {
          method: load.method,
          ...(load.headers && { headers: load.headers }),
          ...(load.body && { body: load.body }),
          ...(load.setupRequest && { setupRequest: load.setupRequest }),
        },
      ],
    } as Parameters<typeof runAutocannon>[0]);
  await run(Math.ceil(requests / 5));
  const before = cpuMicros(pid);
  const measured = await run(requests);
  return (cpuMicros(pid) - before) / measured.count;
}

/** A unique filename per request: the template is re-stamped, autocannon copies it into the request. */
function uploads(url: string, headers: Record<string, string> = {}): Load {
  const template = multipartTemplate(markdownBytes(4 * KiB), 'c');
  let counter = 0;
  return {
    url,
    method: 'POST',
    body: template.body,
    headers: { ...headers, 'content-type': template.contentType },
    setupRequest: (request) => {
      counter += 1;
      template.stamp(counter);
      return request;
    },
  };
}

async function startBaseline(script: string, args: string[] = []): Promise<{ child: Child; url: string }> {
  let url = '';
  const child = spawnNode({
    script: path.join(REPO_ROOT, 'bench/baselines', script),
    args,
    onLine: (line) => {
      if (line.startsWith('{')) url = (JSON.parse(line) as { url: string }).url;
    },
  });
  await waitUntilReady(child, async () => url !== '');
  return { child, url };
}

async function main() {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '10000' },
      only: { type: 'string', default: 'get-project,download-4k,upload-4k' },
    },
  });
  const requests = Number(values.requests);
  const only = new Set(values.only.split(','));
  const dataDir = await makeTempDir('cpu-per-request');
  const rows: string[] = [];
  try {
    const env = serverEnvironment({ dataDir, flavour: sqliteFsFlavour(), logLevel: 'info' });
    const [account] = await seedAccounts(env, ['cpu-main']);
    const auth = { authorization: `Bearer ${account!.api_key}` };
    const projectPath = `/api/projects/${account!.default_project_id}`;
    const server = await startMdstore({ env, compiled: true });
    const pid = server.pid;
    const mdstore: Record<string, number> = {};
    let project: unknown;
    let download: { bytes: Buffer; headers: Record<string, string> } | undefined;
    try {
      project = await httpJson({ url: `${server.url}${projectPath}`, headers: auth, expect: 200 });
      const file = multipartTemplate(markdownBytes(4 * KiB), 'one');
      file.stamp(1);
      await httpJson({
        url: `${server.url}${projectPath}/files`,
        method: 'POST',
        headers: { ...auth, 'content-type': file.contentType },
        body: file.body,
        expect: 201,
      });
      const filePath = `${projectPath}/files/one-000000001.md`;
      const answer = await httpRequest({ url: `${server.url}${filePath}`, headers: auth });
      download = { bytes: answer.body, headers: pickHeaders(answer.headers) };
      if (only.has('get-project'))
        mdstore['get-project'] = await cpuPerRequest(
          pid,
          { url: `${server.url}${projectPath}`, method: 'GET', headers: auth },
          requests,
        );
      if (only.has('download-4k'))
        mdstore['download-4k'] = await cpuPerRequest(
          pid,
          { url: `${server.url}${filePath}`, method: 'GET', headers: auth },
          requests,
        );
      if (only.has('upload-4k'))
        mdstore['upload-4k'] = await cpuPerRequest(
          pid,
          uploads(`${server.url}${projectPath}/files`, auth),
          requests,
        );
    } finally {
      await server.stop();
    }

    const baseline: Record<string, number> = {};
    if (only.has('get-project')) {
      const express = await startBaseline('express-server.ts');
      try {
        await httpRequest({
          url: `${express.url}/__fixtures/project`,
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: Buffer.from(JSON.stringify(project)),
        });
        baseline['get-project'] = await cpuPerRequest(
          express.child.pid,
          { url: `${express.url}${projectPath}`, method: 'GET' },
          requests,
        );
      } finally {
        await express.child.stop();
      }
    }
    if (only.has('download-4k') || only.has('upload-4k')) {
      const transfer = await startBaseline('transfer-server.ts', [dataDir]);
      try {
        if (only.has('download-4k')) {
          await httpRequest({
            url: `${transfer.url}/__downloads/one`,
            method: 'PUT',
            headers: { 'x-fixture-headers': JSON.stringify(download!.headers) },
            body: download!.bytes,
          });
          baseline['download-4k'] = await cpuPerRequest(
            transfer.child.pid,
            { url: `${transfer.url}/download/one`, method: 'GET' },
            requests,
          );
        }
        if (only.has('upload-4k'))
          baseline['upload-4k'] = await cpuPerRequest(
            transfer.child.pid,
            uploads(`${transfer.url}/upload`),
            requests,
          );
      } finally {
        await transfer.child.stop();
      }
    }
    const names: Record<string, string> = {
      'get-project': 'bare Express 5',
      'download-4k': 'bare Express (bytes in memory)',
      'upload-4k': 'Express + busboy + fsync',
    };
    rows.push('| µs of CPU per request | mdstore | baseline | baseline name | mdstore / baseline |');
    rows.push('| --- | ---: | ---: | --- | ---: |');
    for (const name of Object.keys(mdstore)) {
      const ours = mdstore[name]!;
      const theirs = baseline[name]!;
      rows.push(
        `| ${name} | ${ours.toFixed(0)} | ${theirs.toFixed(0)} | ${names[name]} | ${(ours / theirs).toFixed(2)}× |`,
      );
    }
    process.stdout.write(`${rows.join('\n')}\n`);
  } finally {
    await removeDir(dataDir);
    closeHttpAgent();
  }
}

/** The headers mdstore sent with the file, for the baseline to send the same. */
function pickHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (
      typeof value === 'string' &&
      !['connection', 'keep-alive', 'date', 'transfer-encoding'].includes(name)
    )
      kept[name] = value;
  }
  return kept;
}

await main();
