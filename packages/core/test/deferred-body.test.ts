import { deferredBody, isDeferredBody } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { deferred } from '../src/use-cases/deferred-body.js';

/** Deferred bodies: told apart from any parsed JSON value by their brand, and wrapped when in hand. */
describe('deferred bodies', () => {
  it('are recognised by their brand only', () => {
    const body = deferredBody({ check: () => undefined, read: () => 1 });
    expect(isDeferredBody(body)).toBe(true);
    for (const value of [null, undefined, 0, 'body', [], {}, { check: () => undefined, read: () => 1 }])
      expect(isDeferredBody(value)).toBe(false);
    // A brand-like key made by JSON, or a symbol of another name, is no brand.
    expect(isDeferredBody(JSON.parse('{"mdstore.deferredBody": true}'))).toBe(false);
    expect(isDeferredBody({ [Symbol('mdstore.deferredBody')]: true })).toBe(false);
  });

  it('wraps a body in hand: check passes, read gives it back; a deferred body is used as it is', () => {
    const inHand = { edits: [] };
    const wrapped = deferred(inHand);
    expect(isDeferredBody(wrapped)).toBe(true);
    expect(() => wrapped.check()).not.toThrow();
    expect(wrapped.read()).toBe(inHand);
    const refusing = deferredBody({
      check: () => {
        throw new Error('415');
      },
      read: () => inHand,
    });
    expect(deferred(refusing)).toBe(refusing);
    expect(() => deferred(refusing).check()).toThrow('415');
  });
});
