import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../lib/processes.js';

/** One question of the evaluation set and the corpus files (`readmeFilename`) that answer it. */
export interface Question {
  readonly question: string;
  readonly answers: readonly string[];
}

export const QUESTIONS_FILE = path.join(REPO_ROOT, 'bench/search-quality/questions.json');

/** The evaluation set of search by meaning (docs/performance.md, "Search by meaning"). */
export function loadQuestions(): Question[] {
  return JSON.parse(readFileSync(QUESTIONS_FILE, 'utf8')) as Question[];
}

/** The package an answer file stands for: `@scope__name.md` → `@scope/name`. */
export const answerPackage = (filename: string): string => filename.replace(/\.md$/, '').replace('__', '/');

/**
 * The text-mode query of a question with its words OR-ed (`how OR do OR i …`, at most 32 words): what a
 * keyword search engine would do with it, for comparison with the default all-words AND.
 */
export function anyWordQuery(question: string): string {
  const words = question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words)].slice(0, 16).join(' OR ');
}

/** Recall@5 (the share of a question's answer files in the first 5, at most 5 expected) and reciprocal rank. */
export function scoreRanking(ranking: readonly string[], answers: readonly string[]) {
  const expected = new Set(answers);
  const top5 = ranking.slice(0, 5).filter((filename) => expected.has(filename)).length;
  const first = ranking.findIndex((filename) => expected.has(filename));
  return {
    recall5: top5 / Math.min(5, expected.size),
    reciprocalRank: first === -1 ? 0 : 1 / (first + 1),
  };
}

/** Reciprocal rank fusion (k = 60, extensions §15) of rankings of file names; ties by file name. */
export function fuseByReciprocalRank(rankings: readonly (readonly string[])[]): string[] {
  const scores = new Map<string, number>();
  for (const ranking of rankings)
    for (const [index, filename] of ranking.entries())
      scores.set(filename, (scores.get(filename) ?? 0) + 1 / (60 + index + 1));
  return [...scores]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([filename]) => filename);
}
