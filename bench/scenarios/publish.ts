// Issue 38 (extensions §13): publishing a draft of 1 000 files, on both pairs. The project holds 1 000
// files of about 1 KiB; a draft edits every one of them (its second line); before the publish, 100 of
// the live files are edited through a changeset on a line the draft does not touch, so the publish
// merges those 100 three ways (base, current, draft) and writes the rest as they are. The publish's
// time is the median of `rounds` (target < 2 s); one changeset writing the same 1 000 texts straight
// is measured beside it, for scale.
import http from 'node:http';
import { median } from '../lib/load.js';
import type { BenchAccount } from '../lib/mdstore.js';
import { FLAVOURS, type Scenario } from './types.js';

const FILES = 1000;
const DIVERGED = 100;
const TARGET_MS = 2000;

/** About 1 KiB of Markdown in 12 lines, the file's index in its first line. */
const baseText = (i: number) =>
  [
    `# Note ${i}`,
    'The draft changes this line.',
    ...Array.from(
      { length: 9 },
      (_, k) => `Paragraph line ${k}: the quick brown fox jumps over the lazy dog, again and again.`,
    ),
    'The live side changes this line.',
    '',
  ].join('\n');

const draftText = (i: number, round: number) =>
  baseText(i).replace('The draft changes this line.', `The draft of round ${round} changed this line.`);

const liveText = (i: number, round: number) =>
  baseText(i).replace(
    'The live side changes this line.',
    `The live side changed this line in round ${round}.`,
  );

interface Sent {
  readonly status: number;
  readonly body: string;
}

/** A JSON request on a keep-alive agent; resolves with the status and the body. */
function sendJson(agent: http.Agent, url: string, account: BenchAccount, payload: unknown): Promise<Sent> {
  const body = Buffer.from(JSON.stringify(payload));
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${account.api_key}`,
          'content-type': 'application/json',
          'content-length': String(body.byteLength),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const puts = (texts: (i: number) => string, count: number) =>
  Array.from({ length: count }, (_, i) => ({ op: 'put', filename: `notes/n-${i}.md`, content: texts(i) }));

const publishScenario: Scenario = {
  name: 'publish',
  needs: [],
  description: `publish of a ${FILES}-file draft, ${DIVERGED} of them merged three ways (target < ${TARGET_MS / 1000} s)`,
  async run(bench) {
    const rounds = bench.settings.quick ? 1 : 3;
    for (const name of FLAVOURS) {
      const flavour = await bench.flavour(name);
      if (!flavour) continue;
      const { server, accounts } = await bench.startServer(flavour, ['bench-publish'], { label: 'publish' });
      const [account] = accounts as [BenchAccount];
      const project = `${server.url}/api/projects/${account.default_project_id}`;
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const publishes: number[] = [];
      const changesets: number[] = [];
      try {
        for (let round = 0; round < rounds; round++) {
          // Every round starts from the same base texts, so each draft's base is the live file.
          const seeded = await sendJson(agent, `${project}/changesets`, account, {
            message: `base ${round}`,
            operations: puts(baseText, FILES),
          });
          if (seeded.status !== 200) throw new Error(`seed: ${seeded.status} ${seeded.body.slice(0, 300)}`);
          const opened = await sendJson(agent, `${project}/drafts`, account, {
            title: `round ${round}`,
            operations: puts((i) => draftText(i, round), FILES),
          });
          if (opened.status !== 201) throw new Error(`draft: ${opened.status} ${opened.body.slice(0, 300)}`);
          const draftId = (JSON.parse(opened.body) as { id: string }).id;
          const diverged = await sendJson(agent, `${project}/changesets`, account, {
            message: `live edits ${round}`,
            operations: puts((i) => liveText(i, round), DIVERGED),
          });
          if (diverged.status !== 200) throw new Error(`live edits: ${diverged.status}`);

          const started = performance.now();
          const published = await sendJson(agent, `${project}/drafts/${draftId}/publish`, account, {});
          publishes.push(performance.now() - started);
          if (published.status !== 200)
            throw new Error(`publish: ${published.status} ${published.body.slice(0, 300)}`);
          const merged = (JSON.parse(published.body) as { merged?: unknown[] }).merged ?? [];
          if (merged.length !== DIVERGED)
            throw new Error(`publish merged ${merged.length} files, not ${DIVERGED}`);

          const straight = performance.now();
          const direct = await sendJson(agent, `${project}/changesets`, account, {
            message: `straight ${round}`,
            operations: puts((i) => draftText(i, round + 1000), FILES),
          });
          changesets.push(performance.now() - straight);
          if (direct.status !== 200) throw new Error(`changeset: ${direct.status}`);
        }
      } finally {
        agent.destroy();
        await server.stop();
      }
      const [publish, changeset] = [median(publishes), median(changesets)];
      bench.log(
        `    ${name}: publish ${publish.toFixed(0)} ms, the same ${FILES} texts as one changeset ${changeset.toFixed(0)} ms ` +
          `(medians of ${rounds})`,
      );
      const what = `publish: a ${FILES}-file draft, ${DIVERGED} merged [${name}${bench.settings.compiled ? ', compiled' : ''}]`;
      bench.results.lower(what, 'ms', publish, TARGET_MS, `target ${TARGET_MS} ms`);
      bench.results.lower(
        what,
        'ms vs a changeset',
        publish,
        changeset,
        `one changeset of the same ${FILES} texts`,
      );
    }
  },
};

export const publishScenarios: readonly Scenario[] = [publishScenario];
