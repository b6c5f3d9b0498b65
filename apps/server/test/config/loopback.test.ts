import { describe, expect, it } from 'vitest';
import { isLoopbackAddress } from '../../src/config/index.js';

describe('isLoopbackAddress', () => {
  it('recognises loopback addresses', () => {
    for (const host of [
      'localhost',
      'LocalHost',
      '127.0.0.1',
      '127.255.0.9',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
    ]) {
      expect(isLoopbackAddress(host), host).toBe(true);
    }
    expect(isLoopbackAddress('::ffff:127.0.0.1')).toBe(true);
  });

  it('rejects wildcards, other addresses and names', () => {
    for (const host of [
      '0.0.0.0',
      '::',
      '10.0.0.1',
      '::ffff:10.0.0.1',
      'example.com',
      'localhost.example.com',
      '',
    ]) {
      expect(isLoopbackAddress(host), host).toBe(false);
    }
  });
});
