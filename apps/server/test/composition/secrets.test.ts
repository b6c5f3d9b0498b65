import { webCryptoSecrets } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { nodeCryptoSecrets } from '../../src/composition/secrets.js';

describe('nodeCryptoSecrets', () => {
  it('hashes every key exactly as the core default (WebCrypto) does, so stored keys keep working', async () => {
    const keys = [
      webCryptoSecrets.generate(),
      nodeCryptoSecrets.generate(),
      'mds_',
      '',
      'not a key at all: é ü 漢字 \u{1F600}',
      'lone surrogate \uD800 is encoded as U+FFFD by both',
    ];
    for (const key of keys) {
      expect(await nodeCryptoSecrets.hash(key)).toBe(await webCryptoSecrets.hash(key));
    }
    expect(await nodeCryptoSecrets.hash('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('generates keys in the same format: mds_ and 43 base64url characters, all different', () => {
    const generated = Array.from({ length: 50 }, () => nodeCryptoSecrets.generate());
    for (const key of generated) expect(key).toMatch(/^mds_[A-Za-z0-9_-]{43}$/);
    expect(webCryptoSecrets.generate()).toMatch(/^mds_[A-Za-z0-9_-]{43}$/);
    expect(new Set(generated).size).toBe(generated.length);
  });
});
