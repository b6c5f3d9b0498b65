import { expect } from 'vitest';

/**
 * The "no lost memory" fuzz of extensions §14: WRITERS concurrent writers, each sending COMMANDS random
 * `str_replace`/`insert` commands on one memory file, every one on a string no other writer touches
 * (writer w replaces only `own-w:` in its own line, or inserts a line of its own). Every command must
 * succeed, and at the end every token every writer wrote must be in the file: none lost to another.
 */
export const WRITERS = 20;
export const COMMANDS = 50;
export const FUZZ_PATH = '/memories/fuzz.txt';

export type MemoryRunner = (
  writer: number,
  input: Record<string, unknown>,
) => Promise<{ result: string; is_error: boolean }>;

export const initialText = (): string =>
  ['# fuzz', ...Array.from({ length: WRITERS }, (_, w) => `own-${w}:`)].join('\n');

/** A small seeded generator, so a failure can be replayed (the seed is in the test's output). */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

export async function runMemoryFuzz(run: MemoryRunner, seed = Date.now()): Promise<string[]> {
  const tokens: string[] = [];
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      const next = random(seed + w);
      for (let i = 0; i < COMMANDS; i++) {
        const replace = next() < 0.5;
        const token = replace ? `[r-${w}-${i}]` : `[i-${w}-${i}]`;
        const input = replace
          ? { command: 'str_replace', path: FUZZ_PATH, old_str: `own-${w}:`, new_str: `own-${w}: ${token}` }
          : // Lines only grow: a line number up to the first count is always in range.
            {
              command: 'insert',
              path: FUZZ_PATH,
              insert_line: Math.floor(next() * (WRITERS + 2)),
              insert_text: token,
            };
        const answer = await run(w, input);
        expect(answer.is_error, `seed ${seed}, writer ${w}, command ${i}: ${answer.result}`).toBe(false);
        tokens.push(token);
      }
    }),
  );
  return tokens;
}

/** Every token is in the text exactly once; the writers' own lines are all still there. */
export function expectNothingLost(text: string, tokens: readonly string[]): void {
  expect(tokens).toHaveLength(WRITERS * COMMANDS);
  const missing = tokens.filter((token) => text.split(token).length !== 2);
  expect(missing).toEqual([]);
  for (let w = 0; w < WRITERS; w++) expect(text.split(`own-${w}:`).length).toBe(2);
}
