import http from 'node:http';
import { KiB, markdownBytes, multipartBody } from '../lib/content.js';
import { median, postStatus } from '../lib/load.js';
import type { BenchAccount } from '../lib/mdstore.js';
import { FLAVOURS, type Scenario } from './types.js';

const FILES = 100;
const FILE_BYTES = 1 * KiB;
const TARGET = 5;

/** One request on a keep-alive agent; resolves with the status. */
const send = (agent: http.Agent, url: string, account: BenchAccount, body: Buffer, contentType: string) =>
  postStatus(agent, url, { authorization: `Bearer ${account.api_key}`, 'content-type': contentType }, body);

/**
 * Changesets (extensions §9): 100 small files written by one changeset against the same 100 files
 * uploaded one request each, one after the other (what an agent without changesets does); each round
 * writes new names, rounds alternate, the medians are compared (target ≥ 5×).
 */
const changesetScenario: Scenario = {
  name: 'changeset',
  needs: [],
  description: `${FILES} files of 1 KiB in one changeset vs ${FILES} single uploads (target ≥ ${TARGET}×)`,
  async run(bench) {
    const rounds = bench.settings.quick ? 3 : 7;
    const content = markdownBytes(FILE_BYTES);
    for (const name of FLAVOURS) {
      const flavour = await bench.flavour(name);
      if (!flavour) continue;
      const { server, accounts } = await bench.startServer(flavour, ['bench-changeset'], {
        label: 'changeset',
      });
      const [account] = accounts as [BenchAccount];
      const project = `${server.url}/api/projects/${account.default_project_id}`;
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const singles: number[] = [];
      const sets: number[] = [];
      try {
        // One round of each first, not measured: the server warms up.
        for (let round = -1; round < rounds; round++) {
          const started = performance.now();
          for (let i = 0; i < FILES; i++) {
            const { body, contentType } = multipartBody(`single-${round}/f-${i}.md`, content);
            const status = await send(agent, `${project}/files`, account, body, contentType);
            if (status !== 201) throw new Error(`upload: ${status}`);
          }
          const single = performance.now() - started;
          const operations = Array.from({ length: FILES }, (_, i) => ({
            op: 'put',
            filename: `set-${round}/f-${i}.md`,
            content: content.toString('utf8'),
          }));
          const body = Buffer.from(JSON.stringify({ message: `round ${round}`, operations }));
          const setStarted = performance.now();
          const status = await send(agent, `${project}/changesets`, account, body, 'application/json');
          if (status !== 200) throw new Error(`changeset: ${status}`);
          const set = performance.now() - setStarted;
          if (round >= 0) {
            singles.push(single);
            sets.push(set);
          }
        }
      } finally {
        agent.destroy();
        await server.stop();
      }
      const [single, set] = [median(singles), median(sets)];
      bench.log(
        `    ${name}: ${FILES} single uploads ${single.toFixed(0)} ms, one changeset ${set.toFixed(0)} ms ` +
          `(medians of ${rounds}): ${(single / set).toFixed(1)}×`,
      );
      bench.results.higher(
        `changeset: ${FILES} files of 1 KiB [${name}${bench.settings.compiled ? ', compiled' : ''}]`,
        'files per second, one client (higher is better)',
        (FILES * 1000) / set,
        (FILES * 1000) / single,
        `${FILES} single uploads, one after the other (target ≥ ${TARGET}×)`,
      );
    }
  },
};

export const changesetScenarios: readonly Scenario[] = [changesetScenario];
