import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Decision, decide } from '../src/sync/plan.js';

const base = { sha256: 'b', etag: '"e1"' };
const side = (sha256: string, etag = '"e1"') => ({ sha256, etag });

describe('the three-way decision table', () => {
  it.each([
    // local, remote, decision
    ['unchanged', 'unchanged', { sha256: 'b' }, side('b'), { kind: 'none' }],
    ['unchanged', 'metadata only', { sha256: 'b' }, side('b', '"e2"'), { kind: 'record' }],
    [
      'unchanged',
      'changed',
      { sha256: 'b' },
      side('r', '"e2"'),
      { kind: 'download', expect: { sha256: 'b' } },
    ],
    ['unchanged', 'deleted', { sha256: 'b' }, undefined, { kind: 'delete-local', expect: { sha256: 'b' } }],
    ['changed', 'unchanged', { sha256: 'l' }, side('b', '"e2"'), { kind: 'upload', ifMatch: '"e2"' }],
    ['changed', 'changed', { sha256: 'l' }, side('r', '"e2"'), { kind: 'conflict' }],
    ['changed', 'changed alike', { sha256: 'x' }, side('x', '"e2"'), { kind: 'record' }],
    ['changed', 'deleted', { sha256: 'l' }, undefined, { kind: 'upload', ifMatch: undefined }],
    ['deleted', 'unchanged', undefined, side('b', '"e2"'), { kind: 'delete-remote', ifMatch: '"e2"' }],
    ['deleted', 'changed', undefined, side('r', '"e2"'), { kind: 'download', expect: 'absent' }],
    ['deleted', 'deleted', undefined, undefined, { kind: 'forget' }],
  ] as const)('local %s, remote %s', (_l, _r, local, remote, expected) => {
    expect(decide(base, local, remote)).toEqual(expected);
  });

  it.each([
    ['local only', { sha256: 'l' }, undefined, { kind: 'upload', ifMatch: undefined }],
    ['remote only', undefined, side('r'), { kind: 'download', expect: 'absent' }],
    ['both, same content', { sha256: 'x' }, side('x'), { kind: 'record' }],
    ['both, different content', { sha256: 'l' }, side('r'), { kind: 'conflict' }],
    ['neither', undefined, undefined, { kind: 'none' }],
  ] as const)('first sync: %s', (_case, local, remote, expected) => {
    expect(decide(undefined, local, remote)).toEqual(expected);
  });
});

const sha = fc.constantFrom('a', 'b', 'c');
const etag = fc.constantFrom('"1"', '"2"');
const baseArb = fc.option(fc.record({ sha256: sha, etag }), { nil: undefined });
const localArb = fc.option(fc.record({ sha256: sha }), { nil: undefined });
const remoteArb = fc.option(fc.record({ sha256: sha, etag }), { nil: undefined });

/** The decision seen from the other side. */
function mirror(decision: Decision): Decision {
  switch (decision.kind) {
    case 'upload':
      return { kind: 'download', expect: 'absent' };
    case 'download':
      return { kind: 'upload', ifMatch: undefined };
    case 'delete-local':
      return { kind: 'delete-remote', ifMatch: '' };
    case 'delete-remote':
      return { kind: 'delete-local', expect: { sha256: '' } };
    default:
      return decision;
  }
}

describe('properties of the decision', () => {
  it('never removes or replaces content that changed since the base', () => {
    fc.assert(
      fc.property(baseArb, localArb, remoteArb, (b, local, remote) => {
        const decision = decide(b, local, remote);
        const localChanged = local !== undefined && local.sha256 !== b?.sha256;
        const remoteChanged = remote !== undefined && remote.sha256 !== b?.sha256;
        if (localChanged) expect(['download', 'delete-local']).not.toContain(decision.kind);
        if (remoteChanged) expect(['delete-remote']).not.toContain(decision.kind);
        if (remoteChanged && decision.kind === 'upload') expect(local?.sha256).toBe(remote?.sha256);
      }),
    );
  });

  it('remote writes are conditioned on the ETag the remote file has; a new remote file on none', () => {
    fc.assert(
      fc.property(baseArb, localArb, remoteArb, (b, local, remote) => {
        const decision = decide(b, local, remote);
        if (decision.kind === 'upload' || decision.kind === 'delete-remote') {
          expect(decision.ifMatch).toBe(remote?.etag);
        }
        if (decision.kind === 'download' || decision.kind === 'delete-local') {
          expect(decision.expect).toEqual(local === undefined ? 'absent' : { sha256: local.sha256 });
        }
      }),
    );
  });

  it('is symmetric: swapping the sides swaps the direction', () => {
    fc.assert(
      fc.property(baseArb, localArb, remoteArb, (b, local, remote) => {
        // With the base's and the remote's ETag equal, only content decides.
        const fixed = remote && { ...remote, etag: b?.etag ?? remote.etag };
        const there = decide(b, local, fixed);
        const back = decide(
          b,
          fixed && { sha256: fixed.sha256 },
          local && { ...local, etag: b?.etag ?? '"1"' },
        );
        expect(mirror(there).kind).toBe(back.kind);
      }),
    );
  });

  it('after carrying out a decision, deciding again does nothing', () => {
    fc.assert(
      fc.property(baseArb, localArb, remoteArb, (b, local, remote) => {
        const decision = decide(b, local, remote);
        if (decision.kind === 'conflict' || decision.kind === 'none') return;
        // The state and both sides after the decision, as the engine leaves them.
        let after: { sha256: string } | undefined;
        if (decision.kind === 'upload' || decision.kind === 'record') after = local ?? remote;
        if (decision.kind === 'download') after = remote;
        const newBase = after && { sha256: after.sha256, etag: '"3"' };
        const again = decide(newBase, after && { sha256: after.sha256 }, after && { ...after, etag: '"3"' });
        expect(again).toEqual({ kind: 'none' });
      }),
    );
  });
});
