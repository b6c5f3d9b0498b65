// Server CPU per 1 MiB upload (issue 36): the build on sqlite+fs, a fresh data folder, `count` uploads of
// each body at `connections` at once; prints wall req/s and the server's CPU time per upload (user +
// system of the process and its pool threads, from /proc), which a shared machine's load disturbs far
// less than wall time. With `--profile DIR` the server runs with --cpu-prof (main thread and pool).
// Usage: node --conditions=mdstore-source --import tsx bench/support/upload-cpu.ts [--count N]
//        [--connections C] [--profile DIR] [--bodies bench,links,prose]
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import http from 'node:http';
import { parseArgs } from 'node:util';
import {
  linkDenseMarkdown,
  MiB,
  markdownBytes,
  multipartBody,
  plainProse,
  proseWithLinks,
} from '../lib/content.js';
import { closeHttpAgent, httpJson, postStatus } from '../lib/load.js';
import {
  makeTempDir,
  seedAccounts,
  serverEnvironment,
  sqliteFsFlavour,
  startMdstore,
} from '../lib/mdstore.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '40' },
    connections: { type: 'string', default: '4' },
    profile: { type: 'string' },
    bodies: { type: 'string', default: 'bench,links,prose' },
  },
});
const count = Number(values.count);
const connections = Number(values.connections);
const BODIES: Record<string, () => Buffer> = {
  bench: () => markdownBytes(MiB),
  links: () => linkDenseMarkdown(MiB),
  prose: () => plainProse(MiB),
  // Issue 36's second body: 1 MiB with 7 000 links, every one indexed (under the items bound).
  links7000: () => proseWithLinks(MiB, 7_000),
};

/** utime + stime of a process (all its threads), in milliseconds. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const dataDir = await makeTempDir('upload-cpu');
const env = serverEnvironment({ dataDir, flavour: sqliteFsFlavour(), logLevel: 'warn' });
const [account] = await seedAccounts(env, ['upload-cpu']);
const server = await startMdstore({
  env,
  compiled: true,
  nodeFlags: values.profile ? ['--cpu-prof', `--cpu-prof-dir=${values.profile}`] : [],
});
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const auth = { authorization: `Bearer ${account!.api_key}` };
try {
  for (const name of values.bodies!.split(',')) {
    const content = BODIES[name]!();
    const { id } = await httpJson<{ id: string }>({
      url: `${server.url}/api/projects`,
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `p-${name}` }),
      expect: 201,
    });
    const upload = async (i: number) => {
      const { body, contentType } = multipartBody(`${name}-${i}.md`, content);
      const status = await postStatus(
        agent,
        `${server.url}/api/projects/${id}/files`,
        { ...auth, 'content-type': contentType },
        body,
      );
      if (status !== 201) throw new Error(`upload ${name} ${i}: ${status}`);
    };
    for (let i = 0; i < 3; i++) await upload(-1 - i); // warm-up
    const cpuBefore = cpuMs(server.pid);
    const started = process.hrtime.bigint();
    let next = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next < count) await upload(next++);
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu = cpuMs(server.pid) - cpuBefore;
    process.stdout.write(
      `${name}: ${count} uploads of 1 MiB, ${connections} at once: ${(count / seconds).toFixed(2)} req/s, ` +
        `server CPU ${(cpu / count).toFixed(1)} ms per upload\n`,
    );
  }
} finally {
  agent.destroy();
  closeHttpAgent();
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
