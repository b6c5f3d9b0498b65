import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, readTlsFiles } from '../../src/config/index.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('readTlsFiles', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mdstore-tls-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads both PEM files', async () => {
    await writeFile(path.join(dir, 'cert.pem'), PEM);
    await writeFile(path.join(dir, 'key.pem'), PEM.replaceAll('CERTIFICATE', 'PRIVATE KEY'));
    const material = await readTlsFiles({
      certPath: path.join(dir, 'cert.pem'),
      keyPath: path.join(dir, 'key.pem'),
    });
    expect(material.cert.toString()).toBe(PEM);
    expect(material.key.toString()).toContain('BEGIN PRIVATE KEY');
  });

  it('names the variable of a missing file', async () => {
    await writeFile(path.join(dir, 'cert.pem'), PEM);
    const failure = readTlsFiles({
      certPath: path.join(dir, 'cert.pem'),
      keyPath: path.join(dir, 'nope.pem'),
    });
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
    await expect(failure).rejects.toThrow(
      `MDSTORE_TLS_KEY: cannot read ${path.join(dir, 'nope.pem')} (ENOENT)`,
    );
  });

  it('names the variable of a file that is not PEM', async () => {
    await writeFile(path.join(dir, 'cert.pem'), 'hello');
    await writeFile(path.join(dir, 'key.pem'), PEM);
    await expect(
      readTlsFiles({ certPath: path.join(dir, 'cert.pem'), keyPath: path.join(dir, 'key.pem') }),
    ).rejects.toThrow(/^MDSTORE_TLS_CERT: .*cert\.pem is not a PEM file$/);
  });

  it('with both files missing, always names the certificate first (the same line every time)', async () => {
    // A key path whose read fails at once and a certificate path that takes a moment longer to fail
    // (a long chain of folders), so the order the reads end in is the opposite of the order reported.
    const deep = path.join(dir, ...Array.from({ length: 60 }, (_, i) => `d${i}`), 'cert.pem');
    for (let attempt = 0; attempt < 20; attempt++) {
      await expect(readTlsFiles({ certPath: deep, keyPath: path.join(dir, 'nope.pem') })).rejects.toThrow(
        /^MDSTORE_TLS_CERT: cannot read /,
      );
    }
  });
});
