import { describe, expect, it } from 'vitest';
import { readmeCorpus } from '../search-quality/corpus.js';
import {
  answerPackage,
  anyWordQuery,
  fuseByReciprocalRank,
  loadQuestions,
  scoreRanking,
} from '../search-quality/questions.js';

/** The evaluation set of search by meaning (bench/search-quality/questions.json, docs/performance.md). */
describe('the search-quality evaluation set', () => {
  const questions = loadQuestions();

  it('has at least 100 questions, each once, each with its answer files', () => {
    expect(questions.length).toBeGreaterThanOrEqual(100);
    expect(new Set(questions.map((q) => q.question.toLowerCase())).size).toBe(questions.length);
    for (const { question, answers } of questions) {
      expect(question.trim(), question).not.toBe('');
      expect(answers.length, question).toBeGreaterThan(0);
      expect(new Set(answers).size, question).toBe(answers.length);
    }
  });

  it('answers only with files of the corpus built from node_modules (package-lock.json)', async () => {
    const corpus = new Set((await readmeCorpus()).map((file) => file.filename));
    const missing = questions.flatMap(({ answers }) => answers.filter((answer) => !corpus.has(answer)));
    expect(missing).toEqual([]);
  });

  it('never names an answer package in its question', () => {
    const named = questions.flatMap(({ question, answers }) =>
      answers
        .map(answerPackage)
        .flatMap((name) => [...new Set([name, name.split('/').pop()!])])
        .filter((name) =>
          new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(name)}($|[^\\p{L}\\p{N}])`, 'iu').test(question),
        )
        .map((name) => `${name}: ${question}`),
    );
    expect(named).toEqual([]);
  });

  it('asks valid queries of the search language, as written (no operator, within its limits)', () => {
    for (const { question } of questions) {
      expect([...question].length, question).toBeLessThanOrEqual(1000);
      expect(question.match(/[\p{L}\p{N}]+/gu)!.length, question).toBeLessThanOrEqual(32);
      // `-word` excludes, `OR` joins, `"` makes a phrase, `word*` a prefix: a question uses none of them.
      expect(question, question).not.toMatch(/(^|\s)-|\bOR\b|["*]/u);
      expect(anyWordQuery(question).split(' ').length, question).toBeLessThanOrEqual(32);
    }
  });
});

describe('scoreRanking', () => {
  it('is the share of the answers in the first 5 (at most 5 expected) and 1 / the first answer’s place', () => {
    expect(scoreRanking(['a', 'b', 'c'], ['b'])).toEqual({ recall5: 1, reciprocalRank: 0.5 });
    expect(scoreRanking(['a', 'b', 'c', 'd', 'e', 'f'], ['f', 'c'])).toEqual({
      recall5: 0.5,
      reciprocalRank: 1 / 3,
    });
    expect(scoreRanking(['x'], ['a', 'b', 'c', 'd', 'e', 'f'])).toEqual({ recall5: 0, reciprocalRank: 0 });
    expect(scoreRanking(['a', 'b', 'c', 'd', 'e'], ['a', 'b', 'c', 'd', 'e', 'f']).recall5).toBe(1);
  });
});

describe('fuseByReciprocalRank', () => {
  it('adds 1 / (60 + place) over the rankings, ties by file name', () => {
    // a: 1/61 + 1/62; b: 1/62 + 1/61; c: 1/63; d: 1/61.
    expect(fuseByReciprocalRank([['a', 'b', 'c'], ['b', 'a'], ['d']])).toEqual(['a', 'b', 'd', 'c']);
    expect(fuseByReciprocalRank([[], ['x']])).toEqual(['x']);
  });
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
