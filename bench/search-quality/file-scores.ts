// Offline: how a file's vector score from its chunks' scores ranks the evaluation set's answers, without a
// server. `node --conditions=mdstore-source --import tsx bench/search-quality/file-scores.ts [hashed|builtin]`
// embeds the README corpus in process with the server's embedder (the builtin model takes minutes), then
// prints recall@5 and MRR per way of scoring. "best chunk" is what the server does: it gives exactly the
// search-quality scenario's `semantic` figures. See docs/performance.md, "Search by meaning, measured".
import { chunkMarkdown, hashedEmbedder } from '@mdstore/core';
import { builtinEmbedder } from '../../apps/server/src/embeddings/builtin.js';
import { readmeCorpus } from './corpus.js';
import { loadQuestions, scoreRanking } from './questions.js';

const kind = process.argv[2] ?? 'hashed';
const builtin = kind === 'builtin' ? builtinEmbedder() : null;
const embedder = builtin ?? hashedEmbedder();
const corpus = await readmeCorpus();
const questions = loadQuestions();

const unit = (vector: Float32Array) => {
  const length = Math.hypot(...vector) || 1;
  return vector.map((x) => x / length);
};
const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
async function embedAll(texts: readonly string[], purpose: 'query' | 'document') {
  const vectors: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += 64)
    vectors.push(...(await embedder.embed({ texts: texts.slice(i, i + 64), purpose })));
  return vectors.map(unit);
}

const withoutCode = (text: string) => text.replace(/```[\s\S]*?(```|$)/g, ' ');
const chunkings: Record<string, (texts: string[]) => string[]> = {
  'chunks as stored': (texts) => texts,
  'fenced code left out': (texts) => texts.map(withoutCode).filter((text) => text.trim() !== ''),
};
const fileScores: Record<string, (scores: number[]) => number> = {
  'best chunk': (scores) => Math.max(...scores),
  'mean of the best 2': (scores) => {
    const best = [...scores].sort((a, b) => b - a).slice(0, 2);
    return best.reduce((a, b) => a + b, 0) / best.length;
  },
  'first chunk': (scores) => scores[0]!,
  'best of the first 3': (scores) => Math.max(...scores.slice(0, 3)),
};

const queries = await embedAll(
  questions.map((question) => question.question),
  'query',
);
for (const [chunking, select] of Object.entries(chunkings)) {
  const texts: string[] = [];
  const owner: number[] = [];
  for (const [index, file] of corpus.entries())
    for (const text of select(chunkMarkdown(file.content.toString('utf8')).map((chunk) => chunk.text))) {
      texts.push(text);
      owner.push(index);
    }
  const started = Date.now();
  const vectors = await embedAll(texts, 'document');
  process.stderr.write(
    `${chunking}: ${texts.length} chunks embedded in ${(Date.now() - started) / 1000} s\n`,
  );
  for (const [name, score] of Object.entries(fileScores)) {
    let recall5 = 0;
    let mrr = 0;
    for (const [q, question] of questions.entries()) {
      const perFile: number[][] = corpus.map(() => []);
      for (const [i, vector] of vectors.entries()) perFile[owner[i]!]!.push(dot(queries[q]!, vector));
      const ranking = corpus
        .map((file, i) => ({
          filename: file.filename,
          score: perFile[i]!.length > 0 ? score(perFile[i]!) : -2,
        }))
        .sort((a, b) => b.score - a.score || (a.filename < b.filename ? -1 : 1))
        .slice(0, 100)
        .map((hit) => hit.filename);
      const scored = scoreRanking(ranking, question.answers);
      recall5 += scored.recall5;
      mrr += scored.reciprocalRank;
    }
    const n = questions.length;
    process.stdout.write(
      `${kind} | ${chunking} | ${name} | recall@5 ${(recall5 / n).toFixed(3)} | MRR ${(mrr / n).toFixed(3)}\n`,
    );
  }
}
await builtin?.close();
