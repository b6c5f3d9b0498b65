// What the link index (extensions §9) costs a 4 KiB upload over HTTP, in process, on the store the
// environment points at (the bench runs it with the sqlite+fs environment):
//   node --import tsx bench/support/link-index-cost.ts [--quick]           (the build, as npm start)
//   node --conditions=mdstore-source --import tsx bench/support/link-index-cost.ts   (the sources)
// One runtime (composition root) and two HTTP apps on one store, each on its own loopback port: the
// server's store, and the store its child container builds with the link-index step replaced by
// `noLinkIndexing` (no links found, no entry written: TOKENS.linkIndexing). Each takes 4 KiB uploads
// (a new file each, one at a time, one keep-alive connection) of a link-dense page and of plain prose,
// in alternating rounds; the median of the rounds' mean upload times is printed as JSON:
// {"dense":{"indexed_ms":…,"plain_ms":…},"prose":{…},"uploads":…}.
import 'reflect-metadata';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { type MdStore, noLinkIndexing } from '@mdstore/core';
import {
  createHttpApp,
  createLogger,
  createRuntime,
  loadConfig,
  startHttpServer,
  TOKENS,
} from '@mdstore/server';
import { linkDenseMarkdown, multipartTemplate, plainProse } from '../lib/content.js';
import { median, postStatus } from '../lib/load.js';

const { values: flags } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const ROUND_MS = flags.quick ? 300 : 1_500;
const ROUNDS = flags.quick ? 2 : 8;
const SIZE = 4 * 1024;

const logger = createLogger({ level: 'warn', stdout: process.stderr, stderr: process.stderr });
const runtime = await createRuntime(loadConfig(process.env), { logger });
const child = runtime.container.createChildContainer();
child.register(TOKENS.linkIndexing, { useValue: noLinkIndexing });
const plain = child.resolve<MdStore>(TOKENS.store);
const stores = [runtime.store, plain];
const servers = await Promise.all(
  stores.map((store) =>
    startHttpServer({
      app: createHttpApp({ store, logger, trustProxy: false, tls: false }),
      host: '127.0.0.1',
      port: 0,
      logger,
    }),
  ),
);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

const post = (url: string, apiKey: string, body: Buffer, contentType: string): Promise<number> =>
  postStatus(agent, url, { authorization: `Bearer ${apiKey}`, 'content-type': contentType }, body);

try {
  if (plain === runtime.store) throw new Error('the child container did not build a store of its own');
  const created = await runtime.store.accounts.create({ name: `link-index-cost-${Date.now()}` });
  const apiKey = created.apiKey.apiKey;
  let uploads = 0;
  const result: Record<string, { indexed_ms: number; plain_ms: number }> = {};
  for (const [name, content] of [
    ['dense', linkDenseMarkdown(SIZE)],
    ['prose', plainProse(SIZE)],
  ] as const) {
    const variants = await Promise.all(
      servers.map(async (server, index) => {
        const response = await fetch(`${server.url}/api/projects`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `${name}-${index}` }),
        });
        const { id } = (await response.json()) as { id: string };
        return {
          url: `${server.url}/api/projects/${id}/files`,
          template: multipartTemplate(content, `u-${index}`),
          counter: 0,
          means: [] as number[],
        };
      }),
    );
    const upload = async (variant: (typeof variants)[number]) => {
      variant.template.stamp(variant.counter++);
      const status = await post(variant.url, apiKey, variant.template.body, variant.template.contentType);
      if (status !== 201) throw new Error(`upload: ${status}`);
      uploads++;
    };
    // Warm-up: each server takes a few uploads of this document before anything is measured.
    for (const variant of variants) for (let i = 0; i < 20; i++) await upload(variant);
    for (let round = 0; round < ROUNDS; round++) {
      for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
        const started = performance.now();
        let count = 0;
        while (performance.now() - started < ROUND_MS) {
          await upload(variant);
          count++;
        }
        variant.means.push((performance.now() - started) / count);
      }
    }
    result[name] = { indexed_ms: median(variants[0]!.means), plain_ms: median(variants[1]!.means) };
    // What is compared: the first server indexed the page's links, the second did not.
    const outgoing = await Promise.all(
      variants.map(async (variant, index) => {
        const response = await fetch(`${variant.url}/u-${index}-${'0'.repeat(9)}.md/links`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        return ((await response.json()) as { outgoing: unknown[] }).outgoing.length;
      }),
    );
    if (name === 'dense' && !(outgoing[0]! > 0 && outgoing[1] === 0))
      throw new Error(
        `outgoing links indexed ${outgoing[0]} / not indexed ${outgoing[1]}: not the comparison meant`,
      );
  }
  process.stdout.write(`${JSON.stringify({ ...result, uploads })}\n`);
} finally {
  agent.destroy();
  await Promise.all(servers.map((server) => server.close()));
  await runtime.close();
}
