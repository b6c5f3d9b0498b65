import { HeldRequestsLimitError } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { anAccount, createFixture } from './support/fixture.js';

/**
 * What a held change read (long poll, stream) needs from the core (issue 34, findings 6 and 7): its
 * key's state by one store read, and the refusals past the held-request bounds.
 */
describe('held change reads', () => {
  it('a key is valid, then revoked, or expired by the clock: one key read each', async () => {
    let reads = 0;
    const { store, clock } = createFixture({
      wrapRecords: (inner) =>
        new Proxy(inner, {
          get(target, name) {
            const value = Reflect.get(target, name) as unknown;
            if (name === 'findApiKeyById') reads++;
            return typeof value === 'function' ? value.bind(target) : value;
          },
        }),
    });
    const alice = await anAccount(store, 'alice');
    const expiring = await store.apiKeys.create({
      account: alice.accountId,
      role: 'read',
      expiresDate: new Date(clock.now() + 60_000).toISOString(),
    });
    const expiringPrincipal = await store.authenticate({ apiKey: expiring.apiKey });
    const revoked = await store.apiKeys.create({ account: alice.accountId, role: 'read' });
    const revokedPrincipal = await store.authenticate({ apiKey: revoked.apiKey });
    reads = 0;
    expect(await store.changes.keyState({ principal: alice.principal })).toBe('valid');
    expect(await store.changes.keyState({ principal: expiringPrincipal })).toBe('valid');
    await store.apiKeys.revoke({ keyId: revoked.keyId });
    reads = 0;
    expect(await store.changes.keyState({ principal: revokedPrincipal })).toBe('revoked');
    clock.advance(60_000);
    expect(await store.changes.keyState({ principal: expiringPrincipal })).toBe('expired');
    expect(reads).toBe(2);
  });

  it('past a key’s or an account’s bound is TOO_MANY_HELD_REQUESTS, past the instance’s HELD_REQUESTS_FULL', () => {
    expect(new HeldRequestsLimitError('key')).toMatchObject({
      code: 'TOO_MANY_HELD_REQUESTS',
      message: 'Too many open change streams for this API key',
      retryAfterSeconds: 5,
    });
    expect(new HeldRequestsLimitError('account')).toMatchObject({
      code: 'TOO_MANY_HELD_REQUESTS',
      message: 'Too many open change streams for this account',
    });
    expect(new HeldRequestsLimitError('instance')).toMatchObject({ code: 'HELD_REQUESTS_FULL' });
  });
});
