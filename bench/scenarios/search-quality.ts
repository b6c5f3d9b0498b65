import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Bench } from '../lib/context.js';
import { Session } from '../lib/context.js';
import { httpJson, nearestRank } from '../lib/load.js';
import { sqliteFsFlavour } from '../lib/mdstore.js';
import { REPO_ROOT } from '../lib/processes.js';
import { type CorpusFile, readmeCorpus } from '../search-quality/corpus.js';
import {
  anyWordQuery,
  fuseByReciprocalRank,
  loadQuestions,
  type Question,
  scoreRanking,
} from '../search-quality/questions.js';
import type { Scenario } from './types.js';

/**
 * Search by meaning, measured (extensions §15, issue 41): the quality of `text`, `semantic` and `hybrid`
 * on the evaluation set (bench/search-quality/questions.json) over the README corpus, and the cost:
 * hybrid latency at 10 000 files and write throughput with embeddings on vs off.
 *
 * The embeddings provider is the server's `MDSTORE_EMBEDDINGS` taken from the bench's environment
 * (default `builtin`; with `openai` its `MDSTORE_EMBEDDINGS_URL`, `_MODEL` and `_KEY` are passed on too).
 * The 10 000-file latency row uses `MDSTORE_BENCH_LATENCY_EMBEDDINGS` (default `hashed`: embedding
 * 10 000 files with a real model takes longer than a bench run may), named in the row.
 */
const provider = (): string => process.env.MDSTORE_EMBEDDINGS ?? 'builtin';
const latencyProvider = (): string => process.env.MDSTORE_BENCH_LATENCY_EMBEDDINGS ?? 'hashed';

function embeddingsEnv(kind: string): Record<string, string> {
  const env: Record<string, string> = { MDSTORE_EMBEDDINGS: kind };
  for (const name of ['MDSTORE_EMBEDDINGS_URL', 'MDSTORE_EMBEDDINGS_MODEL', 'MDSTORE_EMBEDDINGS_KEY']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** A sqlite+fs server of its own with one account, embeddings `kind`. */
async function serverWithEmbeddings(bench: Bench, kind: string, label: string) {
  const flavour = sqliteFsFlavour();
  const { server, accounts } = await bench.startServer(flavour, [`bench-${label}`], {
    label,
    env: embeddingsEnv(kind),
  });
  const account = accounts[0]!;
  const session = new Session(flavour, server, account, account, [], bench.settings);
  return { session, projectId: account.default_project_id };
}

/** Uploads files with `concurrency` clients; the elapsed seconds. */
async function uploadAll(
  session: Session,
  projectId: string,
  files: readonly CorpusFile[],
  concurrency = 4,
): Promise<number> {
  const started = process.hrtime.bigint();
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++]!;
      await session.upload(projectId, file.filename, file.content);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return Number(process.hrtime.bigint() - started) / 1e9;
}

interface SearchStatus {
  readonly enabled: boolean;
  readonly model: string | null;
  readonly embedded: number;
  readonly pending: number;
  readonly lag_ms: number;
}

/** Waits (bounded) until the indexer has handled every change of the project; its last status. */
async function embeddedAll(bench: Bench, session: Session, projectId: string, timeoutSec: number) {
  const started = Date.now();
  let lastLog = started;
  for (;;) {
    const status = await httpJson<SearchStatus>({
      url: `${session.url}/api/projects/${projectId}/search/status`,
      headers: session.auth(),
      expect: 200,
    });
    if (!status.enabled) throw new Error('search/status: embeddings are off on the server under test');
    if (status.pending === 0) return { status, seconds: (Date.now() - started) / 1000 };
    if (Date.now() - started > timeoutSec * 1000)
      throw new Error(`the indexer did not catch up in ${timeoutSec} s: ${JSON.stringify(status)}`);
    if (Date.now() - lastLog > 15_000) {
      lastLog = Date.now();
      bench.log(`    indexing: ${status.embedded} embedded, ${status.pending} pending`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

type Mode = 'text' | 'semantic' | 'hybrid';

/** Answers cut short by a scan bound (`truncated: true`), counted across the run's searches. */
const truncatedAnswers = { count: 0 };

/** The file names of one search, best first (at most `limit`). */
async function search(
  session: Session,
  projectId: string,
  mode: Mode,
  query: string,
  limit: number,
): Promise<string[]> {
  const answer = await httpJson<{ results: { file: { filename: string } }[]; truncated?: boolean }>({
    url: `${session.url}/api/projects/${projectId}/search`,
    method: 'POST',
    headers: { ...session.auth(), 'content-type': 'application/json' },
    body: JSON.stringify({ query, mode, limit }),
    expect: 200,
  });
  if (answer.truncated) truncatedAnswers.count++;
  return answer.results.map((result) => result.file.filename);
}

/** The mean recall@5 and MRR of one way of searching over the questions, and each question's first answer place. */
async function measureQuality(
  questions: readonly Question[],
  rank: (question: Question) => Promise<string[]>,
): Promise<{
  recall5: number;
  mrr: number;
  found: number;
  places: (number | null)[];
  hubs: string;
  p95Ms: number;
}> {
  let recall5 = 0;
  let mrr = 0;
  const places: (number | null)[] = [];
  const inTop5 = new Map<string, number>();
  const latencies: number[] = [];
  for (const question of questions) {
    const began = process.hrtime.bigint();
    const ranking = await rank(question);
    latencies.push(Number(process.hrtime.bigint() - began) / 1e6);
    for (const filename of ranking.slice(0, 5)) inTop5.set(filename, (inTop5.get(filename) ?? 0) + 1);
    const score = scoreRanking(ranking, question.answers);
    recall5 += score.recall5;
    mrr += score.reciprocalRank;
    places.push(score.reciprocalRank > 0 ? Math.round(1 / score.reciprocalRank) : null);
  }
  const found = places.filter((place) => place !== null).length;
  // The files most often in the first 5, whatever the question: a ranking that favours some files.
  const hubs = [...inTop5]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 3)
    .map(([filename, count]) => `${filename} ×${count}`)
    .join(', ');
  const p95Ms = nearestRank(
    latencies.sort((a, b) => a - b),
    95,
  );
  return { recall5: recall5 / questions.length, mrr: mrr / questions.length, found, places, hubs, p95Ms };
}

/** The quick run: the first questions over the first READMEs and their answer files. */
const QUICK_QUESTIONS = 20;
const QUICK_CORPUS = 40;
/** Results read per search: an answer further down counts 0 in the MRR. */
const RESULT_LIMIT = 100;

const searchQuality: Scenario = {
  name: 'search-quality',
  needs: [],
  description:
    'recall@5 and MRR of text, semantic and hybrid search on 150 questions over the node_modules READMEs (MDSTORE_EMBEDDINGS, default builtin; quick: 20 questions, ~60 READMEs)',
  async run(bench) {
    const kind = provider();
    const all = await readmeCorpus();
    let questions = loadQuestions();
    let corpus = all;
    if (bench.settings.quick) {
      questions = questions.slice(0, QUICK_QUESTIONS);
      const answers = new Set(questions.flatMap((question) => question.answers));
      corpus = all.filter((file, index) => index < QUICK_CORPUS || answers.has(file.filename));
    }
    const { session, projectId } = await serverWithEmbeddings(bench, kind, 'search-quality');
    const uploadSec = await uploadAll(session, projectId, corpus);
    const { status, seconds } = await embeddedAll(bench, session, projectId, bench.settings.quick ? 90 : 900);
    bench.log(
      `    ${corpus.length} READMEs uploaded in ${uploadSec.toFixed(1)} s, all embedded ${seconds.toFixed(1)} s later ` +
        `(${status.embedded} files with chunks, model ${status.model})`,
    );
    const quality = {} as Record<
      Mode | 'text, any word' | 'hybrid, any word',
      Awaited<ReturnType<typeof measureQuality>>
    >;
    const rankings = { semantic: new Map<string, string[]>(), anyWord: new Map<string, string[]>() };
    const kept = (into: Map<string, string[]>, question: Question, ranking: string[]) => {
      into.set(question.question, ranking);
      return ranking;
    };
    for (const mode of ['text', 'semantic', 'hybrid'] as const) {
      quality[mode] = await measureQuality(questions, async (question) => {
        const ranking = await search(session, projectId, mode, question.question, RESULT_LIMIT);
        return mode === 'semantic' ? kept(rankings.semantic, question, ranking) : ranking;
      });
    }
    quality['text, any word'] = await measureQuality(questions, async (question) =>
      kept(
        rankings.anyWord,
        question,
        await search(session, projectId, 'text', anyWordQuery(question.question), RESULT_LIMIT),
      ),
    );
    // Not a mode of the server: what hybrid would measure if it fused the vector ranking with the any-word
    // full-text ranking (the same reciprocal rank fusion, k = 60), computed here from the two answers.
    quality['hybrid, any word'] = await measureQuality(questions, async (question) =>
      fuseByReciprocalRank([
        rankings.semantic.get(question.question)!,
        rankings.anyWord.get(question.question)!,
      ]),
    );
    for (const [mode, { recall5, mrr, found, hubs, p95Ms }] of Object.entries(quality))
      bench.log(
        `    ${mode.padEnd(15)} recall@5 ${recall5.toFixed(3)}  MRR ${mrr.toFixed(3)}  found ${found}/${questions.length}  ` +
          `p95 ${p95Ms.toFixed(1)} ms; ` +
          `most often in the first 5: ${hubs}`,
      );
    const scenario = (what: string) =>
      `search quality, ${what}, ${questions.length} questions, ${corpus.length} READMEs [sqlite+fs, embeddings ${kind}]`;
    const text = quality.text;
    for (const mode of ['hybrid', 'semantic', 'text, any word', 'hybrid, any word'] as const) {
      bench.results.higher(
        scenario(`${mode} vs text`),
        'recall@5',
        quality[mode].recall5,
        text.recall5,
        'mode text',
      );
      bench.results.higher(scenario(`${mode} vs text`), 'MRR', quality[mode].mrr, text.mrr, 'mode text');
    }
    bench.results.lower(
      scenario('hybrid vs text, one client, limit 100'),
      'p95 latency ms',
      quality.hybrid.p95Ms,
      text.p95Ms,
      'mode text (same questions)',
    );
    if (truncatedAnswers.count > 0)
      bench.log(`    ${truncatedAnswers.count} answers were truncated by a scan bound`);
    // Each question's place of its first answer file per mode (null: not in the first 100), to read
    // what each mode misses.
    const details = questions.map((question, index) => ({
      ...question,
      places: Object.fromEntries(Object.entries(quality).map(([mode, { places }]) => [mode, places[index]])),
    }));
    const detailsFile = path.join(REPO_ROOT, `bench/results/search-quality-${kind}.json`);
    await mkdir(path.dirname(detailsFile), { recursive: true });
    await writeFile(detailsFile, `${JSON.stringify(details, null, 1)}\n`);
    bench.log(`    each question's places: ${path.relative(process.cwd(), detailsFile)}`);
    bench.log(
      `    hybrid beats text on recall@5: ${quality.hybrid.recall5 > text.recall5 ? 'yes' : 'NO'} ` +
        `(${quality.hybrid.recall5.toFixed(3)} vs ${text.recall5.toFixed(3)})`,
    );
  },
};

/** The 10 000-file corpus: the READMEs again and again, each copy in a folder of its own and marked. */
function manyFiles(readmes: readonly CorpusFile[], count: number): CorpusFile[] {
  return Array.from({ length: count }, (_, index) => {
    const readme = readmes[index % readmes.length]!;
    const copy = Math.floor(index / readmes.length);
    return {
      filename: `copy-${String(copy).padStart(3, '0')}/${readme.filename}`,
      content: Buffer.concat([
        Buffer.from(`<!-- copy ${copy} of ${readme.filename} -->\n\n`),
        readme.content,
      ]),
    };
  });
}

const searchLatency: Scenario = {
  name: 'search-latency',
  needs: [],
  description:
    'hybrid search p95 at 10 000 files (MDSTORE_BENCH_LATENCY_EMBEDDINGS, default hashed) and uploads/s with embeddings on vs off (quick: 1 000 files)',
  async run(bench) {
    const readmes = await readmeCorpus();
    const questions = loadQuestions();

    // Write throughput: the same READMEs to a server with embeddings on and to one with them off, in
    // alternating rounds, each round on fresh servers. The embeddings server's indexer works during its
    // round (that contention is what is measured); the server is stopped right after its round, so its
    // backlog never runs during another round, whatever the model's speed.
    const kind = provider();
    const rounds = bench.settings.quick ? 2 : 4;
    const perRound = bench.settings.quick ? 100 : 300;
    const seconds = { on: 0, off: 0 };
    // Warm-up (not timed): a fresh server's first uploads pay for JIT and the first pages of its store,
    // and the embeddings server's first embedding for loading its model.
    const warmUp = readmes.slice(0, 40).map((file) => ({ ...file, filename: `warm-up/${file.filename}` }));
    for (let round = 0; round < rounds; round++) {
      const files = manyFiles(readmes, perRound * (round + 1)).slice(perRound * round);
      for (const which of round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
        const target = await serverWithEmbeddings(bench, which === 'on' ? kind : 'off', `writes-${which}`);
        await uploadAll(target.session, target.projectId, warmUp);
        // The model is loaded on first use (builtin: its weights, WebAssembly compiled): once a process,
        // not per write, so before the timed uploads.
        if (which === 'on') await embeddedAll(bench, target.session, target.projectId, 300);
        seconds[which] += await uploadAll(target.session, target.projectId, files);
        await target.session.server.stop();
      }
    }
    const uploads = rounds * perRound;
    bench.results.higher(
      `upload READMEs (4 clients, ${uploads} files), embeddings ${kind} vs off [sqlite+fs]`,
      'throughput uploads/s (higher is better)',
      uploads / seconds.on,
      uploads / seconds.off,
      'MDSTORE_EMBEDDINGS=off',
    );

    // Hybrid latency at 10 000 files, one client, the questions in turn; text mode on the same queries
    // as the baseline.
    const count = bench.settings.quick ? 1_000 : 10_000;
    const latencyKind = latencyProvider();
    const { session, projectId } = await serverWithEmbeddings(bench, latencyKind, 'search-latency');
    const uploadSec = await uploadAll(session, projectId, manyFiles(readmes, count), 8);
    const { seconds: indexSec } = await embeddedAll(
      bench,
      session,
      projectId,
      bench.settings.quick ? 90 : 1200,
    );
    bench.log(
      `    ${count} files uploaded in ${uploadSec.toFixed(1)} s, all embedded ${indexSec.toFixed(1)} s later`,
    );
    const asked = bench.settings.quick ? questions.slice(0, 40) : questions;
    const p95 = async (mode: Mode) => {
      await search(session, projectId, mode, asked[0]!.question, 20);
      const latencies: number[] = [];
      for (const question of asked) {
        const began = process.hrtime.bigint();
        await search(session, projectId, mode, question.question, 20);
        latencies.push(Number(process.hrtime.bigint() - began) / 1e6);
      }
      return nearestRank(
        latencies.sort((a, b) => a - b),
        95,
      );
    };
    const before = truncatedAnswers.count;
    const hybrid = await p95('hybrid');
    const truncated = truncatedAnswers.count - before;
    const text = await p95('text');
    // The two sides of hybrid apart: the vector scan alone, and the any-word full-text ranking alone.
    const semanticBefore = truncatedAnswers.count;
    const semantic = await p95('semantic');
    const semanticTruncated = truncatedAnswers.count - semanticBefore;
    bench.log(
      `    ${truncated} of ${asked.length + 1} hybrid answers and ${semanticTruncated} semantic ones truncated by a scan bound`,
    );
    bench.log(
      `    p95: hybrid ${hybrid.toFixed(1)} ms, semantic ${semantic.toFixed(1)} ms, text ${text.toFixed(1)} ms`,
    );
    bench.results.lower(
      `search, semantic vs text, ${count} files, ${asked.length} questions, one client [sqlite+fs, embeddings ${latencyKind}]`,
      'p95 latency ms',
      semantic,
      text,
      'mode text (same queries)',
    );
    bench.results.lower(
      `search, hybrid vs text, ${count} files, ${asked.length} questions, one client [sqlite+fs, embeddings ${latencyKind}]`,
      'p95 latency ms',
      hybrid,
      text,
      'mode text (same queries)',
    );
  },
};

export const searchQualityScenarios: readonly Scenario[] = [searchQuality, searchLatency];
