import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HISTORY_LIMITS } from '../src/defaults/history.js';
import type { RevisionContent } from '../src/ports/records.js';
import { historyBytes, planRevision } from '../src/use-cases/files/revisions.js';
import { parseRevisionParam, parseRevisionsLimit } from '../src/validation/history.js';

/**
 * History's domain rules (extensions §5) as properties: pruning keeps exactly the newest
 * `keep_revisions`, frees only content versions no kept revision points to (a restore shares the
 * restored version), and the history counter moves by exactly what the kept revisions add up to.
 */

/** A write: a new content version, the current one again (metadata, move), or an earlier one (restore). */
type Write = ({ kind: 'new'; size: number } | { kind: 'same' } | { kind: 'restore'; back: number }) & {
  /** Time since the previous write. */
  gap: number;
};

const gap = fc.integer({ min: 0, max: 50 });
const write: fc.Arbitrary<Write> = fc.oneof(
  fc.record({ kind: fc.constant('new' as const), size: fc.integer({ min: 1, max: 1000 }), gap }),
  fc.record({ kind: fc.constant('same' as const), gap }),
  fc.record({ kind: fc.constant('restore' as const), back: fc.nat({ max: 25 }), gap }),
);

describe('pruning and history accounting', () => {
  it('keeps the newest keep_revisions and those younger than the window, frees only unreferenced versions, counts history exactly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        // The age window (keep_revisions_days, in the same units as the gaps); null: none.
        fc.option(fc.integer({ min: 0, max: 300 })),
        fc.array(write, { maxLength: 60 }),
        (keep, window, writes) => {
          let now = 0;
          let kept: RevisionContent[] = [
            { revision: 1, contentKey: 'v0', inline: true, sizeBytes: 10, createdAt: now },
          ];
          let history = 0;
          let versions = 1;
          const freedEver = new Set<string>();
          for (const step of writes) {
            const current = kept[0]!;
            let location: Pick<RevisionContent, 'contentKey' | 'sizeBytes'> = current;
            if (step.kind === 'new') location = { contentKey: `v${versions++}`, sizeBytes: step.size };
            if (step.kind === 'restore') {
              // Only a kept revision can be restored (else 404 and nothing changes).
              const restored = kept[step.back];
              if (!restored) continue;
              location = restored;
            }
            now += step.gap;
            const added: RevisionContent = {
              contentKey: location.contentKey,
              sizeBytes: location.sizeBytes,
              revision: current.revision + 1,
              inline: true,
              createdAt: now,
            };
            const since = window === null ? Number.POSITIVE_INFINITY : now - window;
            const plan = planRevision(kept, added, window === null ? keep : { count: keep, since });
            const after = [added, ...kept].filter((revision) => !plan.prune.includes(revision.revision));
            // Exactly the newest `keep` stay, and every one younger than the window, in order.
            expect(after.map((r) => r.revision)).toEqual(
              [added, ...kept]
                .filter((revision, index) => index < keep || revision.createdAt > since)
                .map((revision) => revision.revision),
            );
            // A freed version is referenced by no kept revision, and every version only pruned ones held is freed.
            const keptKeys = new Set(after.map((revision) => revision.contentKey));
            for (const freed of plan.freed) expect(keptKeys.has(freed.contentKey)).toBe(false);
            const pruned = [added, ...kept].filter((revision) => plan.prune.includes(revision.revision));
            const orphaned = new Set(pruned.map((r) => r.contentKey).filter((key) => !keptKeys.has(key)));
            expect(new Set(plan.freed.map((freed) => freed.contentKey))).toEqual(orphaned);
            // A version once freed is never pointed to again (a restore can only reach kept ones).
            expect(freedEver.has(added.contentKey)).toBe(false);
            for (const freed of plan.freed) freedEver.add(freed.contentKey);
            history += plan.historyDelta;
            kept = after;
            expect(history).toBe(historyBytes(kept, added.contentKey));
          }
        },
      ),
    );
  });
});

describe('history parameters', () => {
  it('a revision is a positive decimal integer up to the largest a store holds; anything else is 422 at its loc', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 20 }), fc.stringMatching(/^[0-9]{1,16}$/)), (raw) => {
        const valid =
          /^[0-9]{1,15}$/.test(raw) && Number(raw) >= 1 && Number(raw) <= HISTORY_LIMITS.revisionMax;
        let result: number | string;
        try {
          result = parseRevisionParam(raw, ['query', 'from']);
        } catch (error) {
          result = (error as { code: string; issues: { loc: unknown[] }[] }).code;
          expect((error as { issues: { loc: unknown[] }[] }).issues[0]!.loc).toEqual(['query', 'from']);
        }
        expect(result).toEqual(valid ? Number(raw) : 'INVALID_INPUT');
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: HISTORY_LIMITS.revisionMax }), (n) => {
        expect(parseRevisionParam(String(n), ['path', 'revision'])).toBe(n);
      }),
    );
    expect(() => parseRevisionParam(String(HISTORY_LIMITS.revisionMax + 1), ['path', 'revision'])).toThrow(
      expect.objectContaining({
        issues: [expect.objectContaining({ loc: ['path', 'revision'], type: 'less_than_equal' })],
      }),
    );
  });

  it('limit is 1 to 1000, 100 when absent', () => {
    expect(parseRevisionsLimit(undefined)).toBe(100);
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 2000 }), (n) => {
        const within = n >= 1 && n <= 1000;
        if (within) expect(parseRevisionsLimit(String(n))).toBe(n);
        else expect(() => parseRevisionsLimit(String(n))).toThrow();
      }),
    );
  });
});
