// Issue 38 (extensions §13): publishing a draft of 1 000 files, on both pairs. The project holds 1 000
// files of about 1 KiB; a draft edits every one of them (its second line); before the publish, 100 of
// the live files are edited through a changeset on a line the draft does not touch, so the publish
// merges those 100 three ways (base, current, draft) and writes the rest as they are. The publish's
// time is the median of `rounds` (target < 2 s); one changeset writing the same 1 000 texts straight
// is measured beside it, for scale.
import { httpJson, median } from '../lib/load.js';
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
      const post = <T>(path: string, payload: unknown, expect: number) =>
        httpJson<T>({
          url: `${project}${path}`,
          method: 'POST',
          headers: { authorization: `Bearer ${account.api_key}`, 'content-type': 'application/json' },
          body: JSON.stringify(payload),
          expect,
        });
      const publishes: number[] = [];
      const changesets: number[] = [];
      try {
        for (let round = 0; round < rounds; round++) {
          // Every round starts from the same base texts, so each draft's base is the live file.
          await post('/changesets', { message: `base ${round}`, operations: puts(baseText, FILES) }, 200);
          const draftOps = puts((i) => draftText(i, round), FILES);
          const draft = await post<{ id: string }>(
            '/drafts',
            { title: `round ${round}`, operations: draftOps },
            201,
          );
          const liveOps = puts((i) => liveText(i, round), DIVERGED);
          await post('/changesets', { message: `live edits ${round}`, operations: liveOps }, 200);

          const started = performance.now();
          const published = await post<{ merged?: unknown[] }>(`/drafts/${draft.id}/publish`, {}, 200);
          publishes.push(performance.now() - started);
          const merged = published.merged ?? [];
          if (merged.length !== DIVERGED)
            throw new Error(`publish merged ${merged.length} files, not ${DIVERGED}`);

          const straight = performance.now();
          const directOps = puts((i) => draftText(i, round + 1000), FILES);
          await post('/changesets', { message: `straight ${round}`, operations: directOps }, 200);
          changesets.push(performance.now() - straight);
        }
      } finally {
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
