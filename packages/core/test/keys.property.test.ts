import { type Principal, ROLES, type Role, roleCovers } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anAccount, codeOf, createFixture } from './support/fixture.js';

/**
 * Extensions §8, "a key can create only keys with no more than its own", as a property: over random
 * sequences of key creations, each made by a random key already issued (the account's first key, or one
 * made by an earlier step), with a random role, project subset (or none) and expiry (or none), every key
 * that gets issued reaches no further than the key that created it, and so (by induction) no further
 * than any of its ancestors; every creation that would reach further is refused with 403 and issues
 * nothing.
 */
const RUNS = Number(process.env.MDSTORE_PBT_RUNS) || 60;
const HOUR = 3_600_000;

interface Step {
  readonly creator: number;
  readonly role: Role;
  /** Indexes into the account's projects, or null for every project. */
  readonly projects: number[] | null;
  /** Hours from now, or null for never. */
  readonly expiresInHours: number | null;
}

const step: fc.Arbitrary<Step> = fc.record({
  creator: fc.nat({ max: 20 }),
  role: fc.constantFrom(...ROLES),
  projects: fc.option(fc.uniqueArray(fc.nat({ max: 3 }), { maxLength: 4 }), { nil: null }),
  expiresInHours: fc.option(fc.integer({ min: 1, max: 6 }), { nil: null }),
});

/** What a key may reach, from the principal its secret authenticates as. */
function reachesNoFurther(parent: Principal, child: Principal): boolean {
  if (!roleCovers(parent.role, child.role)) return false;
  if (parent.projectIds !== null) {
    if (child.projectIds === null || !child.projectIds.every((id) => parent.projectIds!.includes(id)))
      return false;
  }
  if (parent.expiresAt !== null && (child.expiresAt === null || child.expiresAt > parent.expiresAt))
    return false;
  return true;
}

describe('keys: no sequence of creations yields a key with more than its creator (property)', () => {
  it('every issued key reaches no further than its creator; a wider request is 403 and issues nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const { store, clock } = createFixture();
        const owner = await anAccount(store, 'owner');
        const projects = [owner.defaultProjectId];
        for (const name of ['b', 'c', 'd']) {
          projects.push((await store.projects.create({ principal: owner.principal, body: { name } })).id);
        }
        // Each issued key: its principal and its creator's index (the first key has none).
        const issued: { principal: Principal; parent: number | null }[] = [
          { principal: owner.principal, parent: null },
        ];
        for (const s of steps) {
          const creatorIndex = s.creator % issued.length;
          const creator = issued[creatorIndex]!.principal;
          const body = {
            name: 'child',
            role: s.role,
            ...(s.projects !== null && { project_ids: s.projects.map((i) => projects[i]!) }),
            ...(s.expiresInHours !== null && {
              expires_date: new Date(clock.now() + s.expiresInHours * HOUR).toISOString(),
            }),
          };
          const wanted: Principal = {
            ...creator,
            role: s.role,
            projectIds: body.project_ids ?? null,
            expiresAt: s.expiresInHours === null ? null : clock.now() + s.expiresInHours * HOUR,
          };
          const before = (await store.keys.list({ principal: owner.principal })).length;
          if (!reachesNoFurther(creator, wanted)) {
            expect(await codeOf(() => store.keys.create({ principal: creator, body }))).toBe(
              'OPERATION_NOT_ALLOWED',
            );
            expect(await store.keys.list({ principal: owner.principal })).toHaveLength(before);
            continue;
          }
          const created = await store.keys.create({ principal: creator, body });
          const principal = await store.authenticate({ apiKey: created.apiKey });
          expect(reachesNoFurther(creator, principal)).toBe(true);
          issued.push({ principal, parent: creatorIndex });
        }
        // By induction, no key reaches further than any of its ancestors, the first key included.
        for (const key of issued) {
          let ancestor = key.parent;
          while (ancestor !== null) {
            expect(reachesNoFurther(issued[ancestor]!.principal, key.principal)).toBe(true);
            ancestor = issued[ancestor]!.parent;
          }
        }
      }),
      { numRuns: RUNS },
    );
  });
});
